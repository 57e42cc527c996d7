import type { WindowName, WindowStatus } from './feed-quota.js';

/** What a {@link QuotaGate} answers when asked for room for one request. */
export type QuotaGrant =
  | {
      granted: true;
      /** Epoch ms (client clock) before which the request must not be sent: a reserved slot may start later. */
      notBefore: number;
      /** Gives the room back: the request was not sent after all (cancelled while waiting). */
      cancel(): void;
    }
  | {
      granted: false;
      /** Epoch ms (client clock) when asking again may succeed. */
      at: number;
      /** The window that refused. */
      window: WindowName;
      /** That window's limit in words (`4/minute`). */
      limit: string;
    };

/**
 * The quota of one feed kept somewhere else than in this process (a cluster's shared counters in Redis). The
 * scheduler asks it before each request instead of the feed's local quota. `acquire` never rejects and is bounded in
 * time: a gate that cannot reach where its quota is kept answers from a local share of it.
 */
export interface QuotaGate {
  /** The quota in words (`5/s (burst 5), 500/day`). */
  readonly describe: string;
  /** Asks for room for one request at `now` (client clock). */
  acquire(now: number): Promise<QuotaGrant>;
  /** Holds every request until `until` (a feed's Retry-After), for every client that shares the gate. */
  pause(until: number): void;
  /** When the pause ends, if the feed is paused at `now`. */
  pausedUntil(now: number): number | undefined;
  /** The best known time the next request may go (the last refusal, a pause), for messages. */
  nextAvailable(now: number): { at: number; window?: WindowName; limit?: string };
  /** What is left of each window, as last read. */
  status(now: number): WindowStatus[];
  /** Reads what is left of each window now, where the quota is kept (bounded in time). */
  refresh?(): Promise<void>;
  /** Whether the figures are shared by the cluster (false while it answers from its local share). */
  readonly shared: boolean;
}
