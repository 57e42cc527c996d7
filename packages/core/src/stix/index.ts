export {
  type FromStixBundleOptions,
  fromStixBundle,
  type StixBundleIndicator,
  type StixBundleReading,
  type StixBundleSkip,
} from './from-stix-bundle.js';
export {
  type StixBundle,
  type StixExternalReference,
  type StixIdentity,
  type StixIndicator,
  stixIndicatorId,
  THREATLIB_STIX_IDENTITY,
  THREATLIB_STIX_NAMESPACE,
} from './stix-objects.js';
export { stixStringLiteral, toStixPattern } from './stix-pattern.js';
export {
  type StixCorrelationInput,
  type StixSourceAnswer,
  type ToStixBundleOptions,
  toStixBundle,
} from './to-stix-bundle.js';
