// A certificate authority made at test time and a loopback certificate it signed, so that clients are tested with
// real certificate checks (no `rejectUnauthorized: false`, no bundled key that could leak into trust stores). Made
// with @peculiar/x509 (X509CertificateGenerator and the extensions a CA and a server certificate need):
// https://peculiarventures.github.io/x509/
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** PEM material of a test authority and the server certificate it signed. */
export interface TestPki {
  /** The authority's certificate: what a client trusts (`tls.ca`). */
  ca: string;
  /** The server's certificate, for 127.0.0.1, ::1 and localhost. */
  cert: string;
  /** The server's private key (PKCS #8). */
  key: string;
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/**
 * A certificate authority made now, in memory (named `authority`), and a server certificate it signed for the
 * loopback addresses, valid for a day: what a test TLS server serves.
 */
export async function createTestPki(authority = 'threatlib test authority'): Promise<TestPki> {
  x509.cryptoProvider.set(webcrypto as never);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const caKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${authority}`,
    notBefore,
    notAfter,
    keys: caKeys as never,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey as never),
    ],
  });
  const leafKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=localhost',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey as never,
    signingKey: caKeys.privateKey as never,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'ip', value: '::1' },
        { type: 'dns', value: 'localhost' },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey);
  return { ca: ca.toString('pem'), cert: leaf.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}
