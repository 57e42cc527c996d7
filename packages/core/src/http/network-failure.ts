// The codes a request that got no answer fails with, in words: one table for every integration that reports it
// (the SIEM connector's platforms and forwarder, the cloud publishers). Sources:
// - Node's system errors (`error.code`): https://nodejs.org/api/errors.html#common-system-errors
// - getaddrinfo's EAI_AGAIN: https://man7.org/linux/man-pages/man3/getaddrinfo.3.html
// - undici's errors (`UND_ERR_*`): https://undici.nodejs.org/#/docs/api/Errors
// - OpenSSL's certificate verification errors as Node names them (X509_V_ERR_* without the prefix, and Node's own
//   ERR_TLS_CERT_ALTNAME_INVALID): https://nodejs.org/api/tls.html#x509-certificate-error-codes

/** Network failures by the code Node or undici gives them, in a few words (`connection refused`). */
export const NETWORK_FAILURE_WORDS: Readonly<Record<string, string>> = Object.freeze({
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
});

/**
 * The TLS codes of a server certificate the client does not accept, in a few words: not trusted (signed by an
 * authority the client does not know), expired or not valid yet, or made for another host name.
 */
export const CERTIFICATE_FAILURE_WORDS: Readonly<Record<string, string>> = Object.freeze({
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'TLS certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate not trusted',
  CERT_UNTRUSTED: 'TLS certificate not trusted',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  CERT_NOT_YET_VALID: 'TLS certificate not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
});

/** Whether `code` is one of {@link CERTIFICATE_FAILURE_WORDS}: the server's certificate, not the network, failed. */
export function isCertificateFailure(code: string | undefined): boolean {
  return code !== undefined && Object.hasOwn(CERTIFICATE_FAILURE_WORDS, code);
}

function isKnown(code: unknown): code is string {
  return (
    typeof code === 'string' &&
    (Object.hasOwn(NETWORK_FAILURE_WORDS, code) || Object.hasOwn(CERTIFICATE_FAILURE_WORDS, code))
  );
}

const KNOWN_IN_TEXT = new RegExp(
  `\\b(${[...Object.keys(NETWORK_FAILURE_WORDS), ...Object.keys(CERTIFICATE_FAILURE_WORDS)].join('|')})\\b`,
);

/**
 * The network or certificate failure code (a key of {@link NETWORK_FAILURE_WORDS} or
 * {@link CERTIFICATE_FAILURE_WORDS}) of `error`: its own `code`, or that of a `cause` up to five deep (undici and the
 * SDKs wrap Node's error), or else the first code named in `message` (errors that keep only a message, such as the
 * Azure identity library's). Undefined when none is known.
 */
export function networkFailureCode(error: unknown, message?: string): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (isKnown(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return message === undefined ? undefined : KNOWN_IN_TEXT.exec(message)?.[1];
}
