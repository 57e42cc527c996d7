import { sha256Hex } from '../cache/sha256.js';
import type { CampaignDetectedEvent, CampaignObservation } from '../campaigns/campaign.js';
import { LISTED_INDICATORS, linksOf } from '../campaigns/campaign-tracker.js';
import type { ClusterConnection } from './cluster-connection.js';

/*
 * One link's state, updated atomically (one script per link and threat): its members (indicator -> first seen, last
 * seen, sources) without those older than the window, and its campaign (id, members at the last report). Returns
 * nothing unless the threat formed or grew a campaign: then its id, whether formed or grown, and the members.
 */
const OBSERVE = `
local members, meta = KEYS[1], KEYS[2]
local indicator, at, window, min = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local sources, link, ttl = cjson.decode(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local list, count = {}, 0
local all = redis.call('HGETALL', members)
for i = 1, #all, 2 do
  local m = cjson.decode(all[i + 1])
  if m.l <= at - window then redis.call('HDEL', members, all[i]) else list[all[i]] = m; count = count + 1 end
end
local campaign = redis.call('HGET', meta, 'campaign')
local reported = tonumber(redis.call('HGET', meta, 'reported') or '0')
if count == 0 or (campaign and count < min) then campaign = false; reported = 0; redis.call('DEL', meta) end
local known = list[indicator]
local entry
if known then
  local merged, seen = {}, {}
  for _, s in ipairs(known.s) do if not seen[s] then table.insert(merged, s); seen[s] = true end end
  for _, s in ipairs(sources) do if not seen[s] then table.insert(merged, s); seen[s] = true end end
  entry = { f = math.min(known.f, at), l = math.max(known.l, at), s = merged }
else
  entry = { f = at, l = at, s = sources }
  count = count + 1
end
list[indicator] = entry
redis.call('HSET', members, indicator, cjson.encode(entry))
redis.call('PEXPIRE', members, ttl)
if count < min or count <= reported then
  if campaign then redis.call('PEXPIRE', meta, ttl) end
  return false
end
local status = 'grown'
if not campaign then
  status = 'formed'
  local first = at
  for _, m in pairs(list) do if m.f < first then first = m.f end end
  campaign = 'cmp_' .. string.sub(redis.sha1hex(link .. '|' .. string.format('%d', first)), 1, 22)
  redis.call('HSET', meta, 'campaign', campaign)
end
redis.call('HSET', meta, 'reported', count)
redis.call('PEXPIRE', meta, ttl)
return { campaign, status, cjson.encode(list) }
`;

interface Member {
  f: number;
  l: number;
  s: unknown;
}

/**
 * The campaign tracker of a cluster: the threats every client concludes count towards the same campaigns, and a
 * campaign is reported once when it forms and once each time it grows, by the client whose threat made it so. The
 * rules are those of `CampaignTracker` (at least `minIndicators` distinct indicators sharing a malware family, a tag or
 * a reference within `windowMs`); each link's state is a Redis hash that expires with the window, updated by one
 * script per threat so two clients concluding at once cannot both report the same growth.
 */
export class SharedCampaigns {
  readonly #connection: ClusterConnection;
  readonly #minIndicators: number;
  readonly #windowMs: number;

  constructor(connection: ClusterConnection, options: { minIndicators: number; windowMs: number }) {
    this.#connection = connection;
    this.#minIndicators = options.minIndicators;
    this.#windowMs = options.windowMs;
  }

  /** Records a threat; resolves with the campaigns it formed or grew. Rejects when Redis cannot be reached. */
  async observe(threat: CampaignObservation): Promise<CampaignDetectedEvent[]> {
    const events: CampaignDetectedEvent[] = [];
    for (const [key, kind, value] of linksOf(threat)) {
      const base = `${this.#connection.keyPrefix}c:${sha256Hex(key)}:`;
      const reply = await this.#connection.run('campaign link', (redis) =>
        redis.eval(OBSERVE, {
          keys: [`${base}members`, `${base}meta`],
          arguments: [
            threat.indicator,
            String(threat.at),
            String(this.#windowMs),
            String(this.#minIndicators),
            JSON.stringify([...threat.sources]),
            key,
            String(this.#windowMs + 60_000),
          ],
        }),
      );
      if (!Array.isArray(reply)) continue;
      const [campaign, status, json] = reply as [string, 'formed' | 'grown', string];
      const members = Object.entries(JSON.parse(json) as Record<string, Member>).sort(([, a], [, b]) => a.f - b.f);
      const sources = new Set<string>();
      let first = Number.POSITIVE_INFINITY;
      let last = Number.NEGATIVE_INFINITY;
      for (const [, member] of members) {
        first = Math.min(first, member.f);
        last = Math.max(last, member.l);
        // An empty Lua table comes back as an object: no sources.
        if (Array.isArray(member.s)) for (const source of member.s) sources.add(String(source));
      }
      events.push({
        campaign,
        status,
        sharedBy: { kind, value },
        indicators: members.slice(0, LISTED_INDICATORS).map(([indicator]) => indicator),
        indicatorCount: members.length,
        firstSeen: new Date(first).toISOString(),
        lastSeen: new Date(last).toISOString(),
        sources: [...sources].sort(),
      });
    }
    return events;
  }
}
