import { ThreatlibError } from '../errors/threatlib-error.js';

/**
 * Thrown inside the cluster layer when Redis cannot answer: unreachable, too slow (`cluster.commandTimeout`), a
 * missing `redis` package. The client never lets it reach a lookup: every shared piece falls back to its local twin
 * (see the README, "Running on many machines"). The message names the server's `host:port` and never its password.
 */
export class ClusterError extends ThreatlibError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('CLUSTER_UNAVAILABLE', message, options);
    this.name = 'ClusterError';
  }

  /** Whether `error` is a {@link ClusterError}, from any copy of the package. */
  static override isInstance(error: unknown): error is ClusterError {
    return ThreatlibError.hasCode(error, 'CLUSTER_UNAVAILABLE');
  }
}
