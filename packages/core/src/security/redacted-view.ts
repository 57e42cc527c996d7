import { REDACTED, redactSecrets } from '../logging/redaction.js';

/**
 * The key `util.inspect` (and so `console.log`) looks a custom view up under: Node's `util.inspect.custom`, taken
 * from the global symbol registry so that code meant for the browser too need not import `node:util`.
 */
export const INSPECT_CUSTOM: unique symbol = Symbol.for('nodejs.util.inspect.custom') as never;

/** The options `util.inspect` hands a custom view (the part of them a view uses). */
export interface InspectOptions {
  depth?: number | null;
  [option: string]: unknown;
}

/** The `inspect` function `util.inspect` hands a custom view, to show what the view returns. */
export type InspectFunction = (value: unknown, options?: InspectOptions) => string;

/**
 * Fields that hold secrets in options although their names say nothing of it: the REST server's bearer `tokens`,
 * basic authentication's `users` (name -> password hash), a PKCS#12 bundle's `pfx`. (`redactSecrets` leaves `tokens`
 * alone, since in a log line it is a bucket's count.)
 */
const SECRET_OPTION_NAMES: ReadonlySet<string> = new Set(['tokens', 'users', 'pfx']);

/**
 * A copy of a class's options (or any value) that can be shown, logged or serialised: every field whose name is
 * secret (`password`, `secret`, `token`, `apiKey`, `credentials`, `auth`, `clientSecret`... see `isSecretField`), the
 * server's `tokens` and `users`, and every value of a `headers` map (an `Authorization` or an `X-Api-Key` under any
 * name) become `[redacted]`; every string loses the password of a URL in it (`amqp://user:[redacted]@host`) and
 * secret query parameters. What has nothing to redact is shared with the input, not copied.
 *
 * @example
 * ```ts
 * redactedView({ connection: 'amqp://app:s3cret@mq:5672', auth: { username: 'app', password: 's3cret' } });
 * // { connection: 'amqp://app:[redacted]@mq:5672', auth: '[redacted]' }
 * ```
 */
export function redactedView<T>(value: T): T {
  return redactSecrets(withoutSecretOptions(value, 0)) as T;
}

function withoutSecretOptions(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const shown = withoutSecretOptions(item, depth + 1);
      if (shown !== item) {
        copy ??= value.slice();
        copy[i] = shown;
      }
    });
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  // A class instance (a credential object, a driver's client) is shown by its own toJSON, or walked by redactSecrets.
  if (prototype !== Object.prototype && prototype !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    let shown: unknown;
    if (item === undefined || item === null) shown = item;
    else if (SECRET_OPTION_NAMES.has(key)) shown = REDACTED;
    else if (key === 'headers' && typeof item === 'object' && !Array.isArray(item)) {
      shown = Object.fromEntries(Object.keys(item).map((name) => [name, REDACTED]));
    } else shown = withoutSecretOptions(item, depth + 1);
    if (shown !== item) {
      copy ??= { ...value };
      copy[key] = shown;
    }
  }
  return copy ?? value;
}

/**
 * What a class's `[INSPECT_CUSTOM]` returns: its name and its redacted view, shown with the caller's options (so
 * `console.log` and `util.inspect(x, {depth: Infinity})` look as usual, without the secrets).
 *
 * @example
 * ```ts
 * [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
 *   return inspectView('WebhookManager', this.toJSON(), depth, options, inspect);
 * }
 * ```
 */
export function inspectView(
  name: string,
  view: unknown,
  depth: number,
  options: InspectOptions,
  inspect: InspectFunction,
): string {
  if (depth < 0) return `[${name}]`;
  const inner = options.depth === null || options.depth === undefined ? options.depth : options.depth - 1;
  return `${name} ${inspect(view, { ...options, depth: inner })}`;
}
