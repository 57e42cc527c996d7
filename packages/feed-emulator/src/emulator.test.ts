import { afterEach, describe, expect, it } from 'vitest';
import {
  type FeedEmulator,
  type FeedEmulatorOptions,
  FIXTURE_REFERENCE_TIMES,
  startFeedEmulator,
  VENDORS,
} from './emulator.js';
import { shiftDates } from './fixture-dates.js';

let emulator: FeedEmulator | undefined;
/** The emulator's quota clock, in ms; tests move it instead of sleeping. */
let clock = 0;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  clock = 0;
});

async function start(options: FeedEmulatorOptions): Promise<FeedEmulator> {
  emulator = await startFeedEmulator({ quotaClock: () => clock, defaultBehaviour: 'clean', ...options });
  return emulator;
}

/** Asks VirusTotal about an IP, as threatlib does. */
async function askVirusTotal(ip = '192.0.2.1', key = 'test-key'): Promise<Response> {
  if (!emulator) throw new Error('no emulator');
  const response = await fetch(`${emulator.endpoints.feed_scan}/ip_addresses/${ip}`, { headers: { 'x-apikey': key } });
  await response.arrayBuffer();
  return response;
}

/** Asks AbuseIPDB about an IP, as threatlib does. */
async function askAbuseIpdb(ip = '192.0.2.1'): Promise<Response> {
  if (!emulator) throw new Error('no emulator');
  const response = await fetch(`${emulator.endpoints.feed_abuse}/check?ipAddress=${ip}`, {
    headers: { key: 'test-key', accept: 'application/json' },
  });
  await response.arrayBuffer();
  return response;
}

const statuses = async (n: number, ask: () => Promise<Response>) => {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await ask()).status);
  return seen;
};

describe('quotas', () => {
  it("lets a burst through, then refuses with the vendor's own 429, the real wait and a violation", async () => {
    const feeds = await start({ quotas: { feed_scan: { requestsPerSecond: 2, burst: 3 } } });

    expect(await statuses(3, askVirusTotal)).toEqual([200, 200, 200]);
    const refused = await fetch(`${feeds.endpoints.feed_scan}/ip_addresses/192.0.2.1`, {
      headers: { 'x-apikey': 'test-key' },
    });

    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { code: 'QuotaExceededError', message: 'Quota exceeded' } });
    // One token comes back in 500 ms: rounded up to whole seconds, and sent once although VirusTotal's own 429
    // spells the header in lower case.
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(feeds.stats().feeds.feed_scan).toEqual({ requests: 4, violations: 1, injected429: 0, injected500: 0 });
    expect(feeds.stats().total).toEqual({ requests: 4, violations: 1, injected429: 0, injected500: 0 });
  });

  it('announces the real wait until a token is back, rounded up to whole seconds', async () => {
    await start({ quotas: { feed_scan: { requestsPerSecond: 0.25, burst: 1 } } });

    expect((await askVirusTotal()).status).toBe(200);
    expect((await askVirusTotal()).headers.get('retry-after')).toBe('4');
    clock += 1500;
    expect((await askVirusTotal()).headers.get('retry-after')).toBe('3');
    clock += 2499;
    expect((await askVirusTotal()).headers.get('retry-after')).toBe('1');
    clock += 1;
    expect((await askVirusTotal()).status).toBe(200);
  });

  it('refills continuously at the rate, never beyond the burst', async () => {
    const feeds = await start({ quotas: { feed_scan: { requestsPerSecond: 2, burst: 3 } } });
    expect(await statuses(4, askVirusTotal)).toEqual([200, 200, 200, 429]);

    clock += 499;
    expect((await askVirusTotal()).status).toBe(429);
    clock += 1;
    expect(await statuses(2, askVirusTotal)).toEqual([200, 429]);

    clock += 60_000;
    expect(await statuses(4, askVirusTotal)).toEqual([200, 200, 200, 429]);
    expect(feeds.stats().feeds.feed_scan.violations).toBe(4);
  });

  it('sends X-RateLimit-Limit, -Remaining and -Reset on every answer of a feed with a quota', async () => {
    await start({ quotas: { feed_scan: { requestsPerSecond: 2, burst: 3 } } });
    clock = 10_000;

    const first = await askVirusTotal();
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    // One token short of full: full again 500 ms later, in epoch seconds rounded up.
    expect(first.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((performance.timeOrigin + 10_500) / 1000)));

    expect((await askVirusTotal()).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await askVirusTotal()).headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await askVirusTotal();
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((performance.timeOrigin + 11_500) / 1000)));

    // A refused key is not counted against the quota, but its answer still tells the quota's state.
    clock += 500;
    const unauthorized = await askVirusTotal('192.0.2.1', 'invalid-key');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await askVirusTotal()).status).toBe(200);
  });

  it("replaces a vendor's own rate-limit headers rather than sending them twice", async () => {
    const feeds = await start({ quotas: { feed_abuse: { requestsPerSecond: 1, burst: 5 } } });
    feeds.script('192.0.2.9', 'rate_limited');

    const response = await askAbuseIpdb('192.0.2.9');

    expect(response.status).toBe(429);
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('leaves feeds without a quota unlimited and without rate-limit headers', async () => {
    const feeds = await start({ quotas: { feed_abuse: { requestsPerSecond: 1, burst: 1 } } });

    const seen = await statuses(5, askVirusTotal);

    expect(seen).toEqual([200, 200, 200, 200, 200]);
    expect((await askVirusTotal()).headers.get('x-ratelimit-limit')).toBeNull();
    expect(feeds.stats().total.violations).toBe(0);
  });

  it('starts afresh after resetCounters: counters cleared, bucket full', async () => {
    const feeds = await start({ quotas: { feed_scan: { requestsPerSecond: 1, burst: 2 } } });
    await statuses(3, askVirusTotal);
    expect(feeds.stats().feeds.feed_scan).toMatchObject({ requests: 3, violations: 1 });

    feeds.resetCounters();

    expect(feeds.stats().total).toEqual({ requests: 0, violations: 0, injected429: 0, injected500: 0 });
    expect(await statuses(2, askVirusTotal)).toEqual([200, 200]);
  });
});

describe('fault injection', () => {
  const sequence = async (seed: number) => {
    const feeds = await start({ faults: { rate429: 0.1, rate500: 0.1, seed } });
    const seen = await statuses(200, askVirusTotal);
    const { feed_scan } = feeds.stats().feeds;
    await feeds.close();
    emulator = undefined;
    return { seen, stats: feed_scan };
  };

  it('injects the same faults for the same seed, and different ones for another seed', async () => {
    const first = await sequence(42);
    const again = await sequence(42);
    const other = await sequence(7);

    expect(again.seen).toEqual(first.seen);
    expect(other.seen).not.toEqual(first.seen);
    // VirusTotal's server error is its 503 TransientError.
    expect(first.stats).toEqual({
      requests: 200,
      violations: 0,
      injected429: first.seen.filter((s) => s === 429).length,
      injected500: first.seen.filter((s) => s === 503).length,
    });
    // 10% each of 200 draws: far from 0 and from 200, whatever the seed.
    expect(first.stats.injected429).toBeGreaterThan(5);
    expect(first.stats.injected429).toBeLessThan(40);
    expect(first.stats.injected500).toBeGreaterThan(5);
    expect(first.stats.injected500).toBeLessThan(40);
  });

  it('restarts the fault sequence on resetCounters', async () => {
    const feeds = await start({ faults: { rate429: 0.2, rate500: 0.2, seed: 3 } });
    const first = await statuses(50, askVirusTotal);
    feeds.resetCounters();
    expect(await statuses(50, askVirusTotal)).toEqual(first);
  });

  it('sends a spurious 429 without Retry-After or any hint of a limit', async () => {
    await start({ faults: { rate429: 1, seed: 1 } });

    const viaVirusTotal = await askVirusTotal();
    const viaAbuseIpdb = await askAbuseIpdb();

    expect(viaVirusTotal.status).toBe(429);
    expect(viaVirusTotal.headers.get('retry-after')).toBeNull();
    expect(viaAbuseIpdb.status).toBe(429);
    expect(viaAbuseIpdb.headers.get('retry-after')).toBeNull();
    expect(viaAbuseIpdb.headers.get('x-ratelimit-reset')).toBeNull();
  });

  it('counts an injected fault against the quota, as the request reached the server', async () => {
    const feeds = await start({
      quotas: { feed_scan: { requestsPerSecond: 1, burst: 2 } },
      faults: { rate500: 1, seed: 1 },
    });

    const seen = await statuses(3, askVirusTotal);

    expect(seen).toEqual([503, 503, 429]);
    expect(feeds.stats().feeds.feed_scan).toEqual({ requests: 3, violations: 1, injected429: 0, injected500: 2 });
  });

  it('refuses rates that cannot be fractions of the requests', async () => {
    await expect(startFeedEmulator({ faults: { rate429: 0.7, rate500: 0.7 } })).rejects.toThrow(/must not exceed 1/);
  });
});

describe('portPerFeed', () => {
  it('serves each feed on an origin of its own, and close() releases them all', async () => {
    const feeds = await start({ portPerFeed: true });
    const origins = Object.values(feeds.endpoints).map((endpoint) => new URL(endpoint).origin);

    expect(new Set(origins).size).toBe(5);
    expect((await askVirusTotal()).status).toBe(200);
    expect(feeds.count('feed_scan')).toBe(1);

    await feeds.close();
    emulator = undefined;
    await expect(fetch(feeds.endpoints.feed_scan)).rejects.toThrow();
  });
});

describe('dates', () => {
  const IP = '198.51.100.66';
  const DAY = 86_400_000;
  /** Each feed's answer about IP (malicious), as threatlib asks for it. */
  const askAll = async (feeds: FeedEmulator) => {
    // biome-ignore lint/suspicious/noExplicitAny: vendor answers are whatever the assertions read.
    const json = async (response: Promise<Response>) => (await response).json() as Promise<Record<string, any>>;
    const { endpoints } = feeds;
    return {
      feed_abuse: await json(
        fetch(`${endpoints.feed_abuse}/check?ipAddress=${IP}&verbose`, {
          headers: { key: 'k', accept: 'application/json' },
        }),
      ),
      feed_cti: await json(fetch(`${endpoints.feed_cti}/smoke/${IP}`, { headers: { 'x-api-key': 'k' } })),
      feed_otx: await json(
        fetch(`${endpoints.feed_otx}/indicators/IPv4/${IP}/general`, { headers: { 'x-otx-api-key': 'k' } }),
      ),
      feed_urls: await json(
        fetch(`${endpoints.feed_urls}/host/`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `host=${IP}`,
        }),
      ),
      feed_scan: await json(fetch(`${endpoints.feed_scan}/ip_addresses/${IP}`, { headers: { 'x-apikey': 'k' } })),
      feed_scan_file: await json(
        fetch(`${endpoints.feed_scan}/files/${'ab'.repeat(32)}`, { headers: { 'x-apikey': 'k' } }),
      ),
    };
  };
  const dated = (answers: Awaited<ReturnType<typeof askAll>>) => ({
    abuseLastReported: answers.feed_abuse.data.lastReportedAt,
    abuseReport: answers.feed_abuse.data.reports[5].reportedAt,
    ctiLastSeen: answers.feed_cti.history.last_seen,
    ctiAge: answers.feed_cti.history.days_age,
    otxModified: answers.feed_otx.pulse_info.pulses[2].modified,
    otxName: answers.feed_otx.pulse_info.pulses[2].name,
    otxReference: answers.feed_otx.pulse_info.references[0],
    urlhausFirstSeen: answers.feed_urls.firstseen,
    urlhausAdded: answers.feed_urls.urls[0].date_added,
    vtLastAnalysis: answers.feed_scan.data.attributes.last_analysis_date,
    vtEngineUpdate: Object.values(answers.feed_scan_file.data.attributes.last_analysis_results as object)[0]
      .engine_update,
  });

  it('answers a feed exactly as recorded when its clock is that feed’s reference time', async () => {
    const feeds = await start({ defaultBehaviour: 'malicious', now: FIXTURE_REFERENCE_TIMES.feed_abuse });
    const atAbuse = dated(await askAll(feeds));
    expect(atAbuse).toMatchObject({
      abuseLastReported: '2025-11-20T08:14:03+00:00',
      abuseReport: '2025-11-15T03:11:58+00:00',
      ctiLastSeen: '2025-11-19T22:45:00+00:00',
    });
    await feeds.close();
    const otx = await start({ defaultBehaviour: 'malicious', now: new Date(FIXTURE_REFERENCE_TIMES.feed_otx) });
    expect(dated(await askAll(otx))).toMatchObject({
      otxModified: '2024-02-10T06:40:12.650000',
      urlhausFirstSeen: '2024-02-09 13:41:05 UTC',
      urlhausAdded: '2024-02-09 13:43:18 UTC',
    });
    await otx.close();
    const vt = await start({ defaultBehaviour: 'malicious', now: () => FIXTURE_REFERENCE_TIMES.feed_scan });
    expect(dated(await askAll(vt))).toMatchObject({ vtLastAnalysis: 1_717_200_000, vtEngineUpdate: '20240531' });
  });

  it('moves every date by the time since the recording, in the form it had, and nothing else', async () => {
    const later = 400 * DAY + 3 * 3_600_000 + 7_000;
    const atRecording = await start({ defaultBehaviour: 'malicious', now: FIXTURE_REFERENCE_TIMES.feed_abuse });
    const recorded = await askAll(atRecording);
    await atRecording.close();
    const feeds = await start({ defaultBehaviour: 'malicious', now: FIXTURE_REFERENCE_TIMES.feed_abuse + later });
    const moved = await askAll(feeds);

    expect(dated(moved)).toEqual({
      abuseLastReported: '2026-12-25T11:14:10+00:00',
      abuseReport: '2026-12-20T06:12:05+00:00',
      ctiLastSeen: '2026-12-25T01:45:07+00:00',
      // Relative figures and texts that merely mention a date stay as they are.
      ctiAge: recorded.feed_cti.history.days_age,
      // Each feed's dates move from its own recording: OTX's newest pulse is a day old, as it was then.
      otxModified: '2026-12-25T02:40:19.650000',
      otxName: 'Webscanners 2024-02',
      otxReference: 'https://blog.example-research.org/2024/02/mirai-variant-analysis/',
      urlhausFirstSeen: '2026-12-24 09:41:12 UTC',
      urlhausAdded: '2026-12-24 09:43:25 UTC',
      vtLastAnalysis: Date.parse('2026-12-25T15:00:07Z') / 1000,
      vtEngineUpdate: '20261225',
    });
    // Moved back, every answer is the recorded one: only dates differ.
    for (const answer of Object.keys(moved) as Array<keyof typeof moved>) {
      const feed = answer === 'feed_scan_file' ? 'feed_scan' : answer;
      expect(shiftDates(moved[answer], -later, VENDORS[feed].dateKeys)).toEqual(recorded[answer]);
      expect(moved[answer]).not.toEqual(recorded[answer]);
    }
  });

  it('dates evidence by the real time by default, so the newest is as fresh as when it was recorded', async () => {
    const feeds = await start({ defaultBehaviour: 'malicious' });
    const answers = dated(await askAll(feeds));
    const age = (iso: string, recordedAt: number, recordedIso: string) =>
      Date.now() - Date.parse(iso) - (recordedAt - Date.parse(recordedIso));
    expect(
      Math.abs(age(answers.abuseLastReported, FIXTURE_REFERENCE_TIMES.feed_abuse, '2025-11-20T08:14:03Z')),
    ).toBeLessThan(60_000);
    expect(
      Math.abs(age(`${answers.otxModified}Z`, FIXTURE_REFERENCE_TIMES.feed_otx, '2024-02-10T06:40:12.650Z')),
    ).toBeLessThan(60_000);
  });

  it('dates a script’s answers ageDays further back', async () => {
    const now = FIXTURE_REFERENCE_TIMES.feed_abuse;
    const feeds = await start({ defaultBehaviour: 'malicious', now });
    feeds.script(IP, { behaviour: 'malicious', feeds: ['feed_abuse'], ageDays: 365 });
    expect(dated(await askAll(feeds))).toMatchObject({
      abuseLastReported: '2024-11-20T08:14:03+00:00',
      ctiLastSeen: '2025-11-19T22:45:00+00:00',
    });
    expect(() => feeds.script(IP, { behaviour: 'malicious', ageDays: -1 })).toThrow(/ageDays must be/);
  });
});
