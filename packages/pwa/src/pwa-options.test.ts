import { parseConfig } from '@threatlib/core';
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

  it("takes core's client.config.pwa as it is, and carries it to the worker", () => {
    const config = parseConfig({
      sources: ['feed_urls'],
      pwa: { enabled: true, cacheStrategy: 'cache-first', offlineData: 200, syncOnReconnect: false },
    });
    const options: PwaOptions = config.pwa;
    expect(optionsFromUrl(worker(optionsQuery(options)))).toEqual({
      cacheStrategy: 'cache-first',
      offlineData: 200,
      syncOnReconnect: false,
    });
    // Its defaults are the worker's: the URL says nothing but the strategy.
    expect(optionsFromUrl(worker(optionsQuery(parseConfig({ sources: ['feed_urls'] }).pwa)))).toEqual({
      cacheStrategy: 'network-first',
    });
  });
});
