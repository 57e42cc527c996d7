import type { Integration, IntegrationContext } from './integration.js';

/**
 * Makes an integration from its options and the client's context: the one way an integration package hands core an
 * integration built from configuration (the value it returns is the integration; core never sees a class). It
 * validates `options` itself, throwing a `ConfigurationError` whose paths start with `context.optionsPath`
 * (`Configuration invalid: integrations.siem.port: ...`), and opens nothing: sockets and timers wait for the
 * integration's `start()`.
 *
 * @example
 * ```ts
 * // @threatlib/siem
 * export const createSiemIntegration: IntegrationFactory<SiemOptions, SiemConnector> = (options, context) =>
 *   new SiemConnector(parseSiemOptions(options, context.optionsPath), context);
 * ```
 */
export type IntegrationFactory<Options = unknown, I extends Integration = Integration> = (
  options: Options,
  context: IntegrationContext,
) => I | Promise<I>;
