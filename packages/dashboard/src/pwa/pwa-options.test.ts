import { describe, expect, it } from 'vitest';
import { optionsFromUrl, optionsQuery, type PwaOptions } from './pwa-options.js';

const worker = (query: string) => new URL(`https://example.test/app/sw.js${query}`);

describe("the worker's options on its URL", () => {
  it('carries each option from the page to the worker as given', () => {
    const cases: PwaOptions[] = [
      {},
      { cacheStrategy: 'cache-first' },
      { cacheStrategy: 'network-first', offlineData: 200, syncOnReconnect: false },
      { offlineData: false },
    ];
    for (const options of cases) expect(optionsFromUrl(worker(optionsQuery(options)))).toEqual(options);
    // true is the default (500 verdicts): nothing to carry.
    expect(optionsFromUrl(worker(optionsQuery({ offlineData: true, syncOnReconnect: true })))).toEqual({});
  });

  it('ignores what is not an option value (the defaults stand)', () => {
    expect(
      optionsFromUrl(worker('?cacheStrategy=stale-while-revalidate&offlineData=-1&syncOnReconnect=no&other=1')),
    ).toEqual({});
    expect(optionsFromUrl(worker('?offlineData=99999999'))).toEqual({});
  });
});
