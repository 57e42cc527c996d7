import { type Environment, processEnvironment, readEnvironment } from '../config/environment.js';
import { mergeConfig } from '../config/merge-config.js';
import type { ThreatConfig } from '../config/schema.js';
import type { ConfigurationIssue } from '../errors/configuration-error.js';
import { type Clock, systemClock } from '../scheduler/clock.js';

/**
 * The configuration as the client sees it: the environment's layer under the object given. A malformed variable
 * whose option the object sets is not used: it comes back in `ignored`, for a warning, instead of being fatal.
 */
export function layeredConfig(
  config: object,
  options: { env?: Environment | false },
): { config: ThreatConfig; ignored: ConfigurationIssue[] } {
  const env = options.env === false ? {} : (options.env ?? processEnvironment());
  const { layer, ignored } = readEnvironment(env, config, config);
  return { config: mergeConfig<ThreatConfig>(layer, config), ignored };
}

/** The client's clock: the one given, else the real one, with `now` instead of its time when given. */
export function clockOf(options: { clock?: Clock; now?: () => number }): Clock {
  return options.clock ?? (options.now ? { ...systemClock, now: options.now } : systemClock);
}
