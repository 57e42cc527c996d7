import { ThreatlibError } from './threatlib-error.js';

/**
 * A request could not be sent before its deadline because a quota window (ours, or a pause the feed asked for) has
 * no room in time. Names the feed and the window.
 */
export class RateLimitError extends ThreatlibError {
  readonly feed: string;
  /** `second`, `minute`, `hour`, `day`, or `pause` (the feed's own Retry-After). */
  readonly window: string;
  /** Epoch ms when the window has room again. */
  readonly availableAt: number;

  constructor(feed: string, window: string, availableAt: number, message: string) {
    super('RATE_LIMITED', message);
    this.name = 'RateLimitError';
    this.feed = feed;
    this.window = window;
    this.availableAt = availableAt;
  }

  /** Whether `error` is a {@link RateLimitError}, from any copy of the package. */
  static override isInstance(error: unknown): error is RateLimitError {
    return ThreatlibError.hasCode(error, 'RATE_LIMITED');
  }
}
