// Sources: tls.setDefaultCACertificates / tls.getCACertificates (Node.js 22.19 / 24.5), the CAs every TLS client of
// the process trusts when it is given none, which is how SDKs with agents of their own (the Azure SDKs, MSAL's token
// requests) verify: https://nodejs.org/api/tls.html#tlssetdefaultcacertificatescerts
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

/**
 * Makes every TLS client of this process that is given no CA of its own trust `ca` besides the CAs it trusted
 * already. For tests: the process keeps trusting it until it exits.
 */
export function trustInThisProcess(ca: string): void {
  const current = getCACertificates('default');
  if (!current.includes(ca)) setDefaultCACertificates([...current, ca]);
}
