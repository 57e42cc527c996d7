/** How many skipped items a tally spells out; the rest are only counted, by reason. */
const MAX_DESCRIBED = 5;
/** Most distinct reasons a tally keeps apart; a hostile feed cannot grow the map past this. */
const MAX_REASONS = 32;

/** One skipped event or attribute of a MISP feed, and why. */
export interface MispFeedSkip {
  /** The event's UUID as the manifest names it (shown escaped when it is not a UUID). */
  readonly event: string;
  /** The attribute, when one was skipped: `Attribute[3]` or `Object[1].Attribute[0]`, and its type. */
  readonly attribute?: string;
  /** Why, in words. */
  readonly reason: string;
}

/** What was skipped: how many, how many for each reason, and the first few described. */
export interface MispFeedSkipCount {
  readonly count: number;
  /** Counts by reason (`to_ids is false`, `deleted`, …). */
  readonly byReason: Readonly<Record<string, number>>;
  readonly first: readonly MispFeedSkip[];
}

/** Counts skipped items by reason and keeps the first few. */
export class SkipTally {
  count = 0;
  readonly byReason = new Map<string, number>();
  readonly first: MispFeedSkip[] = [];

  /** Counts one item skipped for `reason` (a short, stable phrase); `detail` adds what a person needs to find it. */
  add(reason: string, skip: Omit<MispFeedSkip, 'reason'>, detail?: string): void {
    this.count += 1;
    const key = this.byReason.has(reason) || this.byReason.size < MAX_REASONS ? reason : 'other';
    this.byReason.set(key, (this.byReason.get(key) ?? 0) + 1);
    if (this.first.length < MAX_DESCRIBED) {
      this.first.push({ ...skip, reason: detail === undefined ? reason : `${reason}: ${detail}` });
    }
  }

  /** Adds every count of `other` to this tally. */
  merge(other: SkipTally): void {
    this.count += other.count;
    for (const [reason, n] of other.byReason) {
      const key = this.byReason.has(reason) || this.byReason.size < MAX_REASONS ? reason : 'other';
      this.byReason.set(key, (this.byReason.get(key) ?? 0) + n);
    }
    for (const skip of other.first) if (this.first.length < MAX_DESCRIBED) this.first.push(skip);
  }

  /** A plain copy, for a status report. */
  toJSON(): MispFeedSkipCount {
    return { count: this.count, byReason: Object.fromEntries(this.byReason), first: [...this.first] };
  }
}

const CONTROL_OR_SEPARATOR = /[\p{Cc}\u2028\u2029]/gu;

/**
 * Text from a feed shown unquoted (a tag, a type, an organisation's name): each control or separator character
 * written as its `\uXXXX` escape, cut to `maxChars` characters.
 */
export function plainFeedText(text: string, maxChars = 100): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return cut.replace(CONTROL_OR_SEPARATOR, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
