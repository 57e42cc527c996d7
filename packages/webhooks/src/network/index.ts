export { AddressPolicy, type AddressVerdict, blockProblem, type PrivateNetworkAllowance } from './address-policy.js';
export { type AddressClass, classifyAddress } from './address-range.js';
export { BlockedAddressError } from './blocked-address-error.js';
export {
  checkedAddresses,
  createGuardedAgent,
  type GuardedAgentOptions,
  type HostResolver,
  type ResolvedAddress,
  systemResolver,
} from './guarded-agent.js';
