// The HTTPS the Sentinel emulator serves: a certificate authority made at test time and a loopback certificate it
// signed (`createTestPki` of the siem emulator), so the Azure SDKs are tested with real certificate checks. Sources:
// - tls.setDefaultCACertificates / tls.getCACertificates (Node.js 22.19 / 24.5): the CAs every TLS client of the
//   process trusts when it is given none, which is how the SDKs' own agents and MSAL's token requests verify:
//   https://nodejs.org/api/tls.html#tlssetdefaultcacertificatescerts
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { createTestPki, type TestPki } from '@threatlib/siem-emulator';

/** PEM material of a test authority and the server certificate it signed. */
export type SentinelTestTls = TestPki;

/** A certificate authority made now, in memory, and a loopback server certificate it signed (valid for a day). */
export function createSentinelTestTls(): Promise<SentinelTestTls> {
  return createTestPki('threatlib Sentinel emulator test authority');
}

/**
 * Makes every TLS client of this process that is given no CA of its own (the Azure SDKs' agents, MSAL's token
 * requests) trust `ca` besides the CAs it trusted already. For tests: the process keeps trusting it until it exits.
 */
export function trustInThisProcess(ca: string): void {
  const current = getCACertificates('default');
  if (!current.includes(ca)) setDefaultCACertificates([...current, ca]);
}
