import { useEffect, useState } from 'preact/hooks';
import { get, token } from '../api.js';
import { ms, when } from '../format.js';
import { Sparkline } from '../sparkline.js';
import type { FeedQuota, FeedState, Health } from '../types.js';

const REFRESH_MS = 5000;
const HISTORY = 40;

interface Snapshot {
  feeds: FeedState[];
  quotas: FeedQuota[];
  health: Health | undefined;
  at: number;
}

/** Feeds: each feed's state, breaker, quota used and left per window, latency and errors, refreshed; integrations' health. */
export function FeedsPage() {
  const [history, setHistory] = useState<Snapshot[]>([]);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      try {
        const [status, quotas, health] = await Promise.all([
          get<{ feeds: FeedState[] }>('feeds/status'),
          get<{ feeds: FeedQuota[] }>('quotas'),
          // At the server's root, not under the API; with protectProbes it takes the API's token.
          fetch(new URL('../health', document.baseURI).pathname, {
            headers: { accept: 'application/json', ...(token() ? { authorization: `Bearer ${token()}` } : {}) },
          })
            // A refusal (401 when the token may not read the probes) leaves the integrations unknown.
            .then((response) =>
              response.status === 401 || response.status === 403 ? undefined : (response.json() as Promise<Health>),
            )
            .catch(() => undefined),
        ]);
        if (stopped) return;
        setHistory((current) =>
          [...current, { feeds: status.feeds, quotas: quotas.feeds, health, at: Date.now() }].slice(-HISTORY),
        );
        setError(undefined);
      } catch (caught) {
        if (!stopped) setError((caught as Error).message);
      }
    };
    void poll();
    const timer = setInterval(poll, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  const latest = history.at(-1);
  const series = (feed: string, pick: (state: FeedState) => number | null) =>
    history.map((snapshot) => {
      const state = snapshot.feeds.find((f) => f.feed === feed);
      return state ? pick(state) : null;
    });
  return (
    <section aria-labelledby="feeds-title">
      <h1 id="feeds-title">Feeds</h1>
      <p class="help">
        Refreshed every {REFRESH_MS / 1000} s{latest ? `; last at ${new Date(latest.at).toLocaleTimeString()}` : ''}.
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!latest ? (
        <p>Loading…</p>
      ) : (
        <table data-testid="feeds">
          <caption>Feeds</caption>
          <thead>
            <tr>
              <th scope="col">Feed</th>
              <th scope="col">Configured</th>
              <th scope="col">Breaker</th>
              <th scope="col">Quota used / left</th>
              <th scope="col">Latency p50 / p95</th>
              <th scope="col">Requests</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {latest.feeds.map((feed) => {
              const quota = latest.quotas.find((q) => q.feed === feed.feed)?.windows ?? feed.quota;
              return (
                <tr key={feed.feed}>
                  <th scope="row">
                    {feed.name} <span class="muted">({feed.feed})</span>
                  </th>
                  <td>{feed.configured ? 'yes' : 'no key'}</td>
                  <td>
                    {feed.breaker.state}
                    {feed.breaker.failures > 0 ? `, ${feed.breaker.failures} failure(s)` : ''}
                    {feed.breaker.nextTrialAt ? `, retry ${when(feed.breaker.nextTrialAt)}` : ''}
                  </td>
                  <td>
                    {quota.length === 0
                      ? 'no limit'
                      : quota.map((w) => (
                          <div key={w.window}>
                            {w.limit - w.remaining} used / {w.remaining} left per {w.window}
                          </div>
                        ))}
                  </td>
                  <td>
                    {ms(feed.latencyMs.p50)} / {ms(feed.latencyMs.p95)}{' '}
                    <Sparkline
                      values={series(feed.feed, (s) => s.latencyMs.p95)}
                      label={`p95 latency of ${feed.feed}`}
                    />
                  </td>
                  <td>
                    {feed.requests.sent} sent, {feed.requests.cacheHits} cached, {failures(feed)} failed{' '}
                    <Sparkline
                      values={series(feed.feed, (s) => s.requests.sent)}
                      label={`requests sent by ${feed.feed}`}
                    />
                  </td>
                  <td>
                    {feed.lastError
                      ? `${feed.lastError.status}: ${feed.lastError.message} (${when(feed.lastError.at)})`
                      : '—'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h2>Integrations</h2>
      <Integrations health={latest?.health} />
    </section>
  );
}

function Integrations({ health }: { health: Health | undefined }) {
  if (!health) return <p>The server's health (/health) is not readable from here.</p>;
  const rows = health.clients.flatMap((client) =>
    integrationsOf(client.integrations).map((row) => ({ ...row, prefix: client.prefix })),
  );
  return (
    <>
      <p>
        Server: <strong>{health.status}</strong>, {health.ready ? 'ready' : 'not ready'}.
      </p>
      {rows.length === 0 ? (
        <p>No integration is configured.</p>
      ) : (
        <table data-testid="integrations">
          <caption>Integrations' health</caption>
          <thead>
            <tr>
              <th scope="col">Integration</th>
              <th scope="col">Health</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.prefix}/${row.name}`}>
                <th scope="row">{row.name}</th>
                <td>
                  {row.healthy === undefined ? 'unknown' : row.healthy ? 'healthy' : 'unhealthy'}
                  {row.detail ? `: ${row.detail}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The integrations of a client's health, a list (`[{name, healthy, detail}]`) or a map by name. */
function integrationsOf(value: unknown): Array<{ name: string; healthy?: boolean; detail?: string }> {
  const entries = Array.isArray(value)
    ? value.map((item) => [String((item as { name?: unknown })?.name ?? '?'), item] as const)
    : Object.entries((value ?? {}) as Record<string, unknown>);
  return entries.map(([name, item]) => {
    const state = (item ?? {}) as { healthy?: unknown; detail?: unknown; error?: unknown };
    return {
      name,
      ...(typeof state.healthy === 'boolean' ? { healthy: state.healthy } : {}),
      ...(typeof state.detail === 'string'
        ? { detail: state.detail }
        : typeof state.error === 'string'
          ? { detail: state.error }
          : {}),
    };
  });
}

/** Lookups of a feed that ended without an answer (every status but `ok` and `not_found`). */
function failures(feed: FeedState): number {
  return Object.entries(feed.requests.byStatus)
    .filter(([status]) => status !== 'ok' && status !== 'not_found')
    .reduce((sum, [, count]) => sum + count, 0);
}
