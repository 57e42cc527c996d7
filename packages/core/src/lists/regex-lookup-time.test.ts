// Acceptance of issue 21, finding 3: no entry of a regex list can make a lookup backtrack.
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Indicator } from '../indicators/indicator.js';
import { LinearRegex, MAX_PATTERN_INSTRUCTIONS } from './linear-regex.js';
import { ListLoadError } from './list-load-error.js';
import { compileMispWarninglist } from './misp-warninglist.js';
import type { Warninglist } from './warninglist.js';

interface LookupReport {
  refused?: string;
  lookups: { value: number; matched: boolean; ms: number }[];
  done: boolean;
}

/**
 * Loads `list` and looks up `inputs` (as indicators of `type`) in a worker thread, giving up after `limitMs`: a lookup
 * that backtracks for minutes is then cut short by terminating the thread, and the report says how far it got.
 */
async function lookUpInWorker(
  list: object,
  type: string,
  inputs: readonly string[],
  limitMs: number,
): Promise<LookupReport> {
  const report: LookupReport = { lookups: [], done: false };
  const worker = new Worker(new URL('./__fixtures__/warninglist-lookup-worker.mjs', import.meta.url), {
    workerData: { list, type, inputs },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, limitMs);
    worker.on(
      'message',
      (message: { refused?: string; value?: number; matched?: boolean; ms?: number; done?: boolean }) => {
        if (message.refused !== undefined) report.refused = message.refused;
        if (message.value !== undefined) report.lookups.push(message as LookupReport['lookups'][number]);
        if (message.refused !== undefined || message.done) {
          report.done = true;
          clearTimeout(timer);
          resolve();
        }
      },
    );
    worker.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  await worker.terminate();
  return report;
}

describe('a regular expression on a list cannot stall a lookup', () => {
  it('answers the entry of issue 21 at once, whatever the length of a hostile value', async () => {
    // Matching `'a'.repeat(n) + '.com'` against this entry backtracked 2^n times: 70 s at n = 40.
    const list = {
      name: 'Evil hosts',
      type: 'regex',
      list: ['/^([a-z0-9-]+\\.?)+\\.evil\\.example$/i'],
      matching_attributes: ['domain'],
    };
    const hostile = [26, 30, 34, 40, 48, 64, 128, 249].map((n) => `${'a'.repeat(n)}.com`);
    const report = await lookUpInWorker(list, 'domain', [...hostile, 'www.mail.evil.example'], 10_000);
    const answered = report.lookups.map((lookup) => lookup.value);
    expect(report.refused, 'the entry is one a linear-time engine runs').toBeUndefined();
    expect(report.done, `still matching a value of ${hostile[answered.length]?.length} characters after 10 s`).toBe(
      true,
    );
    expect(report.lookups.map((lookup) => lookup.matched)).toEqual([...hostile.map(() => false), true]);
  }, 30_000);
});

// What list patterns are made of, small enough to combine into the shapes that backtrack: nested and overlapping
// quantifiers (`(a+)+`, `(a|a)*`, `(\w+\.?)+`), alternations, back-references and lookarounds.
const ALPHABET = ['a', 'b', '.', '-', '0', '@', ' '] as const;
const atom = fc.constantFrom('a', 'b', '\\.', '.', '-', '[a-z0-9-]', '[^.]', '\\w', '\\d', '\\s', '[ab]', '(?:a|ab)');
const quantifier = fc.constantFrom('*', '+', '?', '*?', '+?', '{2}', '{1,3}', '{0,5}', '{2,}', '*', '+', '++');

const { pattern } = fc.letrec<{ pattern: string; term: string; piece: string }>((tie) => ({
  piece: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: atom, weight: 6 },
    { arbitrary: tie('pattern').map((inner) => `(${inner})`), weight: 2 },
    { arbitrary: tie('pattern').map((inner) => `(?:${inner})`), weight: 2 },
    // An overlapping alternation: the same branch twice, or a branch and a longer one.
    { arbitrary: fc.tuple(tie('pattern'), atom).map(([inner, more]) => `(${inner}|${inner}${more})`), weight: 2 },
    {
      arbitrary: fc
        .tuple(tie('pattern'), fc.constantFrom('(?=', '(?!', '(?<=', '(?<!'))
        .map(([x, look]) => `${look}${x})`),
      weight: 1,
    },
    { arbitrary: fc.constantFrom('\\1', '(?P=n)', '\\k<n>'), weight: 1 },
  ),
  term: fc.oneof(
    tie('piece'),
    fc.tuple(tie('piece'), quantifier).map(([piece, q]) => `${piece}${q}`),
  ),
  pattern: fc
    .array(tie('term'), { minLength: 1, maxLength: 4 })
    .chain((terms) => fc.constantFrom(terms.join(''), `(${terms.join('')})+`, `${terms.join('|')}`)),
}));

const listEntry = fc
  .tuple(pattern, fc.boolean(), fc.boolean(), fc.constantFrom('', 'i', 's', 'm'))
  .map(([body, start, end, flags]) => `/${start ? '^' : ''}${body}${end ? '$' : ''}/${flags}`);

// Hostile values: one character pumped up to 256, a pumped pair, or any mix, each ending in what makes a match fail.
const hostileValue = fc.oneof(
  fc
    .tuple(fc.constantFrom(...ALPHABET), fc.integer({ min: 1, max: 252 }), fc.constantFrom('!', '.com', '', '\n'))
    .map(([c, n, tail]) => `${c.repeat(n)}${tail}`.slice(0, 256)),
  fc
    .tuple(
      fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 2, maxLength: 3 }),
      fc.integer({ min: 1, max: 128 }),
    )
    .map(([pump, n]) => `${pump.repeat(n)}!`.slice(0, 256)),
  fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 256 }),
);

function indicator(value: string): Indicator {
  return { type: 'domain', value, input: value, defanged: false };
}

/** The least of three timings of one lookup: a lookup the scheduler preempted once is not counted as slow. */
function lookupMs(list: Warninglist, value: string): number {
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    list.match(indicator(value));
    least = Math.min(least, performance.now() - started);
  }
  return least;
}

describe('generated list patterns against hostile values', () => {
  it('each pattern is refused at load, or runs on the linear-time engine and answers each lookup within 10 ms', () => {
    let loaded = 0;
    let refused = 0;
    fc.assert(
      fc.property(listEntry, fc.array(hostileValue, { minLength: 1, maxLength: 6 }), (entry, values) => {
        let list: Warninglist;
        try {
          list = compileMispWarninglist({
            name: 'Generated',
            type: 'regex',
            list: [entry],
            matching_attributes: ['domain'],
          });
        } catch (error) {
          // Refused: with a reason that names the list and the entry, never silently dropped.
          expect(ListLoadError.isInstance(error)).toBe(true);
          expect((error as ListLoadError).problem).toContain(`warninglist "Generated": entry ${JSON.stringify(entry)}`);
          refused += 1;
          return;
        }
        loaded += 1;
        // Linear by construction, whatever the value: the entry is an RE2 program (one thread per instruction,
        // never a backtracking stack), of bounded size, so a lookup costs at most that many steps per character.
        const [rule] = list.rules;
        expect(rule?.kind === 'regex' && rule.regex instanceof LinearRegex).toBe(true);
        if (rule?.kind === 'regex') expect(rule.regex.instructions).toBeLessThanOrEqual(MAX_PATTERN_INSTRUCTIONS);
        for (const value of values) {
          const ms = lookupMs(list, value);
          expect(ms, `${entry} on ${JSON.stringify(value)}`).toBeLessThan(10);
        }
      }),
      { numRuns: 1000 },
    );
    // Both outcomes occur: the generator is not all back-references, nor all accepted.
    expect(loaded).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  }, 60_000);
});
