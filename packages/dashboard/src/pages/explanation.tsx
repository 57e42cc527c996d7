import { useEffect, useRef, useState } from 'preact/hooks';
import { request } from '../api.js';
import { ms } from '../format.js';
import type { ScanResult } from '../types.js';

interface StixBundle {
  objects: Array<{ type: string; pattern?: string }>;
}

/**
 * Why a verdict is what it is: each source's part, the evidence, the lists that matched, timings, the STIX pattern.
 * Each source's part is the scan's own `explanation` (asked with `explain: true`), never a second lookup: concluding
 * again would spend the feeds' quota, could differ from the row, and raises the alert again when its delivery failed.
 */
export function Explanation({ result, online, onClose }: { result: ScanResult; online: boolean; onClose: () => void }) {
  const correlation = result.explanation;
  const [pattern, setPattern] = useState<string | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    heading.current?.focus();
    setPattern(undefined);
    if (!online) return;
    request<StixBundle>('POST', 'stix/bundle', { correlations: [result] })
      .then((answer) => setPattern(answer.body.objects.find((o) => o.type === 'indicator')?.pattern))
      .catch(() => setPattern(undefined));
  }, [result, online]);

  const lists = result.results.filter((r) => r.feed.startsWith('list:') || r.tags.includes('local-list'));
  return (
    <section class="explanation" aria-labelledby="explanation-title" data-testid="explanation">
      <h2 id="explanation-title" tabIndex={-1} ref={heading}>
        Why {result.indicator} is {result.verdict}
      </h2>
      <button type="button" class="close" onClick={onClose}>
        Close explanation
      </button>
      <p>
        Risk score {result.riskScore}/10, confidence {Math.round(result.confidence)}%, {result.consensus} source(s)
        agreeing; looked up {new Date(result.startedAt).toLocaleString()} in {ms(result.durationMs)}.
        {correlation
          ? ` Strategy ${correlation.strategy}: ${correlation.sourcesAnswered} of ${correlation.sourcesQueried} sources answered.`
          : ''}
      </p>
      {result.warninglist ? (
        <p class="notice">
          Warninglist <strong>{result.warninglist.list}</strong> matched <code>{result.warninglist.entry}</code>:{' '}
          {result.warninglist.reason}
        </p>
      ) : null}
      {!correlation ? (
        <p class="notice">This verdict was kept without each source's weighting: scan it again to see it.</p>
      ) : null}
      <table data-testid="contributions">
        <caption>Each source's answer{correlation ? ' and its part in the verdict' : ''}</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Status</th>
            <th scope="col">Verdict</th>
            <th scope="col">Score</th>
            {correlation ? <th scope="col">Counted</th> : null}
            {correlation ? <th scope="col">Contribution</th> : null}
            <th scope="col">Evidence</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {result.results.map((feed) => {
            const part = correlation?.contributions.find((c) => c.feed === feed.feed);
            return (
              <tr key={feed.feed}>
                <th scope="row">{feed.feed}</th>
                <td>
                  {feed.status}
                  {feed.error ? ` (${feed.error.message})` : ''}
                </td>
                <td>{feed.verdict}</td>
                <td>{feed.score.toFixed(2)}</td>
                {correlation ? <td>{part ? `${part.counted ? 'yes' : 'no'}: ${part.reason}` : '—'}</td> : null}
                {correlation ? <td>{part ? part.contribution.toFixed(3) : '—'}</td> : null}
                <td>
                  {[...feed.evidence, ...feed.categories, ...feed.malwareFamilies].join('; ') || '—'}
                  {feed.cached ? ' (cached)' : ''}
                </td>
                <td>{ms(feed.durationMs)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3>Lists and warninglists matched</h3>
      <p>
        {[
          ...lists.map((l) => `${l.feed} (${l.verdict})`),
          ...(result.warninglist ? [`warninglist ${result.warninglist.list}`] : []),
        ].join(', ') || 'None.'}
      </p>
      <h3>STIX pattern</h3>
      <p>
        <code data-testid="stix-pattern">{pattern ?? (online ? 'loading…' : 'needs the server')}</code>
      </p>
    </section>
  );
}
