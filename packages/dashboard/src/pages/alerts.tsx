import { useEffect, useState } from 'preact/hooks';
import { get, request } from '../api.js';
import { when } from '../format.js';
import type { Alert, AlertPage } from '../types.js';

const SEVERITIES = ['informational', 'low', 'medium', 'high', 'critical'];

/** Alerts: filtered by severity, time and indicator; each alert's deliveries per integration, and redeliver. */
export function AlertsPage({ online }: { online: boolean }) {
  const [minSeverity, setMinSeverity] = useState('');
  const [since, setSince] = useState('');
  const [indicator, setIndicator] = useState('');
  const [alerts, setAlerts] = useState<Alert[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  // Each load of the list reloads the open alert too (its deliveries move on in the background).
  const [version, setVersion] = useState(0);

  const load = async () => {
    setVersion((v) => v + 1);
    const query = new URLSearchParams({ limit: '200' });
    if (minSeverity) query.set('minSeverity', minSeverity);
    const sinceTime = since ? Date.parse(since) : Number.NaN;
    if (!Number.isNaN(sinceTime)) query.set('since', new Date(sinceTime).toISOString());
    try {
      setAlerts((await get<AlertPage>(`alerts?${query}`)).items);
      setError(undefined);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  useEffect(() => {
    void load();
  }, [minSeverity, since]);

  const needle = indicator.trim().toLowerCase();
  const shown = (alerts ?? []).filter(
    (alert) => !needle || alert.indicators.some((i) => i.value.toLowerCase().includes(needle)),
  );
  return (
    <section aria-labelledby="alerts-title">
      <h1 id="alerts-title">Alerts</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label for="min-severity">At least severity</label>
        <select
          id="min-severity"
          value={minSeverity}
          onChange={(event) => setMinSeverity((event.target as HTMLSelectElement).value)}
        >
          <option value="">any</option>
          {SEVERITIES.map((severity) => (
            <option key={severity} value={severity}>
              {severity}
            </option>
          ))}
        </select>
        <label for="since">Since</label>
        <input
          id="since"
          type="datetime-local"
          value={since}
          onInput={(e) => setSince((e.target as HTMLInputElement).value)}
        />
        <label for="alert-indicator">Indicator contains</label>
        <input
          id="alert-indicator"
          type="search"
          value={indicator}
          onInput={(event) => setIndicator((event.target as HTMLInputElement).value)}
        />
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {alerts === undefined ? (
        <p>Loading…</p>
      ) : shown.length === 0 ? (
        <p>No alert matches.</p>
      ) : (
        <table data-testid="alerts">
          <caption>Alerts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Severity</th>
              <th scope="col">Indicators</th>
              <th scope="col">When</th>
              <th scope="col">Deliveries</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((alert) => (
              <tr key={alert.id}>
                <th scope="row">
                  <button
                    type="button"
                    class="link"
                    aria-expanded={open === alert.id}
                    onClick={() => setOpen(open === alert.id ? undefined : alert.id)}
                  >
                    {alert.title}
                  </button>
                </th>
                <td>
                  <span class={`severity ${alert.severity}`}>{alert.severity}</span>
                </td>
                <td>{alert.indicators.map((i) => i.value).join(', ') || '—'}</td>
                <td>{when(alert.timestamp)}</td>
                <td>{summary(alert)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open ? <AlertDetail id={open} online={online} version={version} /> : null}
    </section>
  );
}

function summary(alert: Alert): string {
  if (alert.deliveries.length === 0) return 'none';
  const count = (status: string) => alert.deliveries.filter((d) => d.status === status).length;
  return `${count('delivered')} delivered, ${count('failed')} failed, ${count('pending')} pending`;
}

/** One alert: its deliveries to each integration, and redeliver. */
function AlertDetail({ id, online, version }: { id: string; online: boolean; version: number }) {
  const [alert, setAlert] = useState<Alert | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const load = () =>
    get<Alert>(`alerts/${encodeURIComponent(id)}`).then(setAlert, (caught: Error) => setMessage(caught.message));
  useEffect(() => {
    void load();
  }, [id, version]);
  const redeliver = async () => {
    try {
      const answer = await request<Alert | { queued: true }>('POST', `alerts/${encodeURIComponent(id)}/redeliver`, {});
      if ('queued' in answer.body) setMessage('Offline: redelivery queued; it is sent once when the network is back.');
      else {
        setAlert(answer.body);
        setMessage('Redelivery started for the integrations not yet delivered; Refresh shows how it went.');
      }
    } catch (caught) {
      setMessage((caught as Error).message);
    }
  };
  if (!alert) return <p>{message ?? 'Loading…'}</p>;
  return (
    <section class="detail" aria-labelledby="alert-detail-title" data-testid="alert-detail">
      <h2 id="alert-detail-title">{alert.title}</h2>
      {alert.description ? <p>{alert.description}</p> : null}
      <table data-testid="deliveries">
        <caption>Deliveries per integration</caption>
        <thead>
          <tr>
            <th scope="col">Integration</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {alert.deliveries.length === 0 ? (
            <tr>
              <td colSpan={5}>No integration is started: nothing to deliver to.</td>
            </tr>
          ) : (
            alert.deliveries.map((delivery) => (
              <tr key={delivery.integration}>
                <th scope="row">{delivery.integration}</th>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{when(delivery.lastAttemptAt)}</td>
                <td>{delivery.lastError ?? '—'}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <button
        type="button"
        onClick={() => void redeliver()}
        disabled={!alert.deliveries.some((d) => d.status !== 'delivered') && online}
      >
        Redeliver
      </button>
      {message ? <p role="status">{message}</p> : null}
    </section>
  );
}
