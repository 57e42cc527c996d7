import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { CampaignDetectedEvent, CampaignLinkKind, CampaignObservation } from './campaign.js';

/** Options of {@link CampaignTracker}. */
export interface CampaignTrackerOptions {
  /** Distinct indicators that make a campaign (default 3). */
  minIndicators?: number;
  /** How long an indicator counts towards a campaign after it was last concluded a threat, in ms (default 24 h). */
  windowMs?: number;
  /** Most links (a family, a tag, a reference) remembered at once; the least recently seen go first (default 10000). */
  maxLinks?: number;
}

/** Most indicators listed in one report; `indicatorCount` says how many there are. */
export const LISTED_INDICATORS = 500;
/** Longest link value considered (a tag or family name, a URL). */
const MAX_VALUE_LENGTH = 2048;

interface Member {
  firstSeen: number;
  lastSeen: number;
  sources: ReadonlySet<string>;
}

interface Link {
  kind: CampaignLinkKind;
  /** The value as first seen (families and tags compare without case). */
  value: string;
  members: Map<string, Member>;
  /** Set while a campaign is formed on this link. */
  campaign: string | undefined;
  /** Indicators at the last report. */
  reported: number;
}

/**
 * Finds campaigns among the threats a client concludes: at least `minIndicators` distinct indicators sharing a
 * malware family, a tag or a referenced pulse or report, each concluded a threat within the last `windowMs`. A
 * campaign is reported when it forms and again whenever an indicator joins it; once its indicators have all aged out
 * of the window it ends, and a later group on the same link is a new campaign (a new id). A tag that names one of the
 * threat's malware families is not counted twice. Memory is bounded by `maxLinks`.
 *
 * @example
 * ```ts
 * const tracker = new CampaignTracker({ minIndicators: 3 });
 * for (const event of tracker.observe({ indicator, at: Date.now(), sources, malwareFamilies, tags, references })) {
 *   console.log(event.campaign, event.status, event.sharedBy, event.indicators);
 * }
 * ```
 */
export class CampaignTracker {
  readonly minIndicators: number;
  readonly windowMs: number;
  readonly maxLinks: number;
  /** Links by `kind\0normalised value`, least recently seen first. */
  readonly #links = new Map<string, Link>();

  constructor(options: CampaignTrackerOptions = {}) {
    this.minIndicators = options.minIndicators ?? 3;
    this.windowMs = options.windowMs ?? 86_400_000;
    this.maxLinks = options.maxLinks ?? 10_000;
    if (!Number.isInteger(this.minIndicators) || this.minIndicators < 2) {
      throw new RangeError(`minIndicators must be a whole number of at least 2, got ${this.minIndicators}`);
    }
    if (!(this.windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${this.windowMs}`);
  }

  /** Records a threat and returns the campaigns it formed or grew (none most of the time). */
  observe(threat: CampaignObservation): CampaignDetectedEvent[] {
    const events: CampaignDetectedEvent[] = [];
    for (const [key, kind, value] of linksOf(threat)) {
      let link = this.#links.get(key);
      if (link) this.#links.delete(key);
      else link = { kind, value, members: new Map(), campaign: undefined, reported: 0 };
      this.#links.set(key, link);
      this.#expire(link, threat.at);
      const known = link.members.get(threat.indicator);
      link.members.set(threat.indicator, {
        firstSeen: known?.firstSeen ?? threat.at,
        lastSeen: Math.max(known?.lastSeen ?? threat.at, threat.at),
        sources: new Set([...(known?.sources ?? []), ...threat.sources]),
      });
      const size = link.members.size;
      if (size < this.minIndicators || size <= link.reported) continue;
      const status = link.campaign === undefined ? 'formed' : 'grown';
      link.campaign ??= campaignId(key, earliest(link));
      link.reported = size;
      events.push(report(link, link.campaign, status));
    }
    while (this.#links.size > this.maxLinks) {
      const oldest = this.#links.keys().next().value as string;
      this.#links.delete(oldest);
    }
    return events;
  }

  /** Drops the members of `link` not seen within the window before `now`; a campaign left too small ends. */
  #expire(link: Link, now: number): void {
    for (const [indicator, member] of link.members) {
      if (member.lastSeen <= now - this.windowMs) link.members.delete(indicator);
    }
    if (link.members.size === 0 || (link.campaign !== undefined && link.members.size < this.minIndicators)) {
      link.campaign = undefined;
      link.reported = 0;
    }
  }
}

/**
 * What `threat` is linked by: `[key, kind, value]` per malware family, tag (not one naming a family) and reference,
 * the key folding case for families and tags.
 */
export function linksOf(threat: CampaignObservation): Array<[string, CampaignLinkKind, string]> {
  const links = new Map<string, [string, CampaignLinkKind, string]>();
  const add = (kind: CampaignLinkKind, raw: string, fold: boolean) => {
    const value = raw.trim();
    if (value === '' || value.length > MAX_VALUE_LENGTH) return;
    const key = `${kind}\0${fold ? value.toLowerCase() : value}`;
    if (!links.has(key)) links.set(key, [key, kind, value]);
  };
  const families = new Set(threat.malwareFamilies.map((family) => family.trim().toLowerCase()));
  for (const family of threat.malwareFamilies) add('malwareFamily', family, true);
  for (const tag of threat.tags) if (!families.has(tag.trim().toLowerCase())) add('tag', tag, true);
  for (const reference of threat.references) add('reference', reference, false);
  return [...links.values()];
}

function earliest(link: Link): number {
  let first = Number.POSITIVE_INFINITY;
  for (const member of link.members.values()) first = Math.min(first, member.firstSeen);
  return first;
}

function campaignId(key: string, formedFrom: number): string {
  return `cmp_${base64url(sha256(utf8ToBytes(`${key}\0${formedFrom}`))).slice(0, 22)}`;
}

/** RFC 4648 section 5 base64url without padding, as `Buffer#toString('base64url')` gives, in Node and browsers. */
function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

function report(link: Link, campaign: string, status: 'formed' | 'grown'): CampaignDetectedEvent {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const sources = new Set<string>();
  for (const member of link.members.values()) {
    first = Math.min(first, member.firstSeen);
    last = Math.max(last, member.lastSeen);
    for (const source of member.sources) sources.add(source);
  }
  const indicators = [...link.members.keys()];
  return {
    campaign,
    status,
    sharedBy: { kind: link.kind, value: link.value },
    indicators: indicators.slice(0, LISTED_INDICATORS),
    indicatorCount: indicators.length,
    firstSeen: new Date(first).toISOString(),
    lastSeen: new Date(last).toISOString(),
    sources: [...sources].sort(),
  };
}
