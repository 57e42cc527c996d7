import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { parseSize } from './size.js';

describe('parseSize', () => {
  it.each([
    ['0B', 0],
    ['1B', 1],
    ['512 b', 512],
    ['1KB', 1000],
    ['1kb', 1000],
    ['100MB', 100_000_000],
    ['2GB', 2_000_000_000],
    ['1TB', 1_000_000_000_000],
    ['1KiB', 1024],
    ['1.5 KiB', 1536],
    ['64MiB', 64 * 1024 ** 2],
    ['1GiB', 1024 ** 3],
    ['2TiB', 2 * 1024 ** 4],
    [' 10 mib ', 10 * 1024 ** 2],
    ['0.5B', 0],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['', '100', 'MB', '-1MB', '1 PB', '1,5MB', '1e3KB', '100 megabytes'])(
    'refuses %j with a ConfigurationError naming the option',
    (text) => {
      expect(() => parseSize(text, 'caching.filesystem.maxSize')).toThrow(ConfigurationError);
      expect(() => parseSize(text, 'caching.filesystem.maxSize')).toThrow(
        /^Configuration invalid: caching\.filesystem\.maxSize: expected a size such as "100MB"/,
      );
    },
  );
});
