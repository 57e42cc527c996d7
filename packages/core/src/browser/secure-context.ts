import { InsecureContextError } from '../errors/insecure-context-error.js';

/** What {@link checkSecureContext} reads of the global scope (a page's `window`, a worker's `self`). */
export interface SecureContextScope {
  isSecureContext?: unknown;
  location?: { origin?: unknown; protocol?: unknown } | undefined;
  crypto?: { subtle?: unknown } | undefined;
}

/**
 * The `browser.secureContext` check: with `required` true, refuses to go on outside a secure context, with an error
 * that says why (WebCrypto) and what to do. A scope without `isSecureContext` at all is not a page (Node.js, where
 * WebCrypto is always there) and passes. With `required` false it checks nothing.
 *
 * A secure context that still has no `crypto.subtle` (a browser too old for it) is refused as well, since what the
 * option protects is WebCrypto.
 *
 * @throws {InsecureContextError} as above.
 *
 * @example
 * ```ts
 * checkSecureContext(config.browser?.secureContext === true); // before the vault or encrypted storage is opened
 * ```
 */
export function checkSecureContext(required: boolean, scope: SecureContextScope = globalThis): void {
  if (!required || !('isSecureContext' in scope)) return;
  const origin = typeof scope.location?.origin === 'string' ? scope.location.origin : undefined;
  const where = origin ? ` (${origin})` : '';
  if (scope.isSecureContext !== true) {
    throw new InsecureContextError(
      `browser.secureContext is true but this page${where} is not a secure context (isSecureContext is false): ` +
        'WebCrypto (crypto.subtle), which the vault and encrypted storage use, exists only in secure contexts. ' +
        'Serve the page over https:// (or from http://localhost while developing).',
      origin,
    );
  }
  if (typeof scope.crypto?.subtle !== 'object' || scope.crypto.subtle === null) {
    throw new InsecureContextError(
      `browser.secureContext is true and this page${where} is a secure context, but it has no WebCrypto ` +
        '(crypto.subtle), which the vault and encrypted storage use: this browser is too old.',
      origin,
    );
  }
}
