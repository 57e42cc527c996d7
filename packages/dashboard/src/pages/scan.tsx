import { type StoredVerdict, storedVerdicts } from '@threatlib/pwa';
import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.js';
import { download, toCsv, toStix } from '../export.js';
import { indicatorsOf, when } from '../format.js';
import { onWorkerMessage } from '../pwa/worker-events.js';
import type { BatchResponse, ScanResult } from '../types.js';
import { Explanation } from './explanation.js';

/** One line of the table: a verdict (live or stored), a refusal, or a scan waiting for the network. */
interface Row {
  input: string;
  result?: ScanResult;
  problem?: string;
  /** When the verdict was kept, for one answered from storage. */
  storedAt?: number;
  queued?: boolean;
}

interface QueuedAnswer {
  queued: true;
  waiting: number;
  stored: Array<{ input: string; storedAt: number; result: ScanResult }>;
}

const BATCH = 500;

/** Rows of a batch answer. */
function rowsOf(body: BatchResponse): Row[] {
  return body.results.map((item) =>
    item.ok
      ? { input: item.input, result: item.result }
      : { input: item.input, problem: item.problem.detail ?? item.problem.title },
  );
}

/** Scan: paste indicators, see each verdict, open why; export the table. */
export function ScanPage({ online }: { online: boolean }) {
  const [text, setText] = useState('');
  const [rows, setRows] = useState<Row[]>([]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const [open, setOpen] = useState<ScanResult | undefined>();
  const [stored, setStored] = useState<Array<StoredVerdict<ScanResult>>>([]);

  const refreshStored = () => {
    storedVerdicts<ScanResult>().then(setStored, () => setStored([]));
  };
  useEffect(() => {
    refreshStored();
    // A scan queued offline was sent: its verdicts replace the waiting rows.
    return onWorkerMessage((worker) => {
      if (worker.type !== 'replayed' || !worker.url.endsWith('/threats/batch')) return;
      if (worker.status >= 200 && worker.status < 300) {
        const answered = rowsOf(worker.body as BatchResponse);
        setRows((current) => [...answered, ...current.filter((row) => !answered.some((a) => a.input === row.input))]);
        setMessage(`A scan made offline was sent: ${answered.length} verdict(s).`);
      } else {
        setMessage(`A scan made offline was refused by the server (${worker.status}).`);
      }
      refreshStored();
    });
  }, []);

  const scan = async (event: Event) => {
    event.preventDefault();
    const indicators = indicatorsOf(text);
    if (indicators.length === 0) {
      setMessage('Paste at least one indicator.');
      return;
    }
    setBusy(true);
    setMessage(undefined);
    const out: Row[] = [];
    try {
      for (let start = 0; start < indicators.length; start += BATCH) {
        const chunk = indicators.slice(start, start + BATCH);
        const answer = await request<BatchResponse | QueuedAnswer>('POST', 'threats/batch', {
          indicators: chunk,
          // Each verdict says why, from this lookup: the explanation asks the server nothing more (and so raises no
          // second alert, as concluding again with POST /correlate would after a failed delivery).
          explain: true,
        });
        if ('queued' in answer.body) {
          const known = answer.body.stored;
          for (const input of chunk) {
            const hit = known.find((s) => s.input === input);
            out.push(
              hit ? { input, result: hit.result, storedAt: hit.storedAt, queued: true } : { input, queued: true },
            );
          }
          setMessage(
            `Offline: the scan is queued and will be sent once when the network is back (${answer.body.waiting} waiting). Stored verdicts are shown meanwhile.`,
          );
        } else {
          out.push(...rowsOf(answer.body));
        }
      }
      setRows(out);
      refreshStored();
    } catch (caught) {
      setMessage((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const verdicts = rows.flatMap((row) => (row.result ? [row.result] : []));
  const exportStix = async () => {
    try {
      download('threatlib-verdicts.stix.json', 'application/json', JSON.stringify(await toStix(verdicts), null, 2));
    } catch (caught) {
      setMessage(`STIX export failed: ${(caught as Error).message}`);
    }
  };

  return (
    <section aria-labelledby="scan-title">
      <h1 id="scan-title">Scan</h1>
      <form onSubmit={scan} class="scan-form">
        <label for="indicators">Indicators (one per line; defanged forms such as hxxp://evil[.]example are read)</label>
        <textarea
          id="indicators"
          rows={6}
          value={text}
          onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
        />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Scanning…' : 'Scan'}
          </button>
          <button
            type="button"
            disabled={verdicts.length === 0}
            onClick={() => download('threatlib-verdicts.csv', 'text/csv', toCsv(verdicts))}
          >
            Export CSV
          </button>
          <button
            type="button"
            disabled={verdicts.length === 0}
            onClick={() => download('threatlib-verdicts.json', 'application/json', JSON.stringify(verdicts, null, 2))}
          >
            Export JSON
          </button>
          <button type="button" disabled={verdicts.length === 0 || !online} onClick={exportStix}>
            Export STIX bundle
          </button>
        </div>
      </form>
      {message ? (
        <p class="notice" role="status" data-testid="scan-message">
          {message}
        </p>
      ) : null}
      {rows.length > 0 ? <VerdictTable rows={rows} onOpen={setOpen} caption="Verdicts" testId="verdicts" /> : null}
      {open ? <Explanation result={open} online={online} onClose={() => setOpen(undefined)} /> : null}
      <h2>Stored verdicts (available offline)</h2>
      {stored.length === 0 ? (
        <p>None yet: verdicts are kept here as you scan.</p>
      ) : (
        <VerdictTable
          rows={stored.map((s) => ({ input: s.inputs[0] ?? s.indicator, result: s.result, storedAt: s.storedAt }))}
          onOpen={setOpen}
          caption="Stored verdicts"
          testId="stored-verdicts"
        />
      )}
    </section>
  );
}

function VerdictTable(props: { rows: Row[]; onOpen: (result: ScanResult) => void; caption: string; testId: string }) {
  return (
    <table data-testid={props.testId}>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Indicator</th>
          <th scope="col">Type</th>
          <th scope="col">Verdict</th>
          <th scope="col">Risk score</th>
          <th scope="col">Confidence</th>
          <th scope="col">Consensus</th>
          <th scope="col">Source</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.input}>
            <th scope="row">
              {row.result ? (
                <button type="button" class="link" onClick={() => row.result && props.onOpen(row.result)}>
                  {row.result.indicator}
                </button>
              ) : (
                row.input
              )}
              {row.result && row.result.indicator !== row.input ? (
                <span class="muted"> (asked as {row.input})</span>
              ) : null}
            </th>
            <td>{row.result?.type ?? '—'}</td>
            <td>
              {row.result ? (
                <span class={`verdict ${row.result.verdict}`}>{row.result.verdict}</span>
              ) : (
                (row.problem ?? '—')
              )}
            </td>
            <td>{row.result ? `${row.result.riskScore}/10` : '—'}</td>
            <td>{row.result ? `${Math.round(row.result.confidence)}%` : '—'}</td>
            <td>{row.result ? row.result.consensus : '—'}</td>
            <td>
              {row.queued ? 'queued (offline)' : ''}
              {row.queued && row.storedAt ? ' · ' : ''}
              {row.storedAt ? `stored ${when(new Date(row.storedAt).toISOString())}` : row.queued ? '' : 'live'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
