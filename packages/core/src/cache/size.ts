import { ConfigurationError } from '../errors/configuration-error.js';

/*
 * Decimal units follow SI (1 KB = 1000 bytes), as disk vendors and the IEC recommend; binary units (KiB = 1024) are
 * there for people who think in powers of two. Units are case-insensitive and always mean bytes ("100mb" is 100 MB,
 * never megabits), matching the `sizeString` schema.
 */
const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i;

/**
 * The number of bytes a size string stands for, rounded down to a whole byte. `B`, `KB`, `MB`, `GB` and `TB` are
 * powers of 1000; `KiB`, `MiB`, `GiB` and `TiB` are powers of 1024; units are case-insensitive and a space may
 * separate number and unit. Throws a `ConfigurationError` naming `path` when the text is not a size.
 *
 * @example
 * ```ts
 * parseSize('100MB');    // 100_000_000
 * parseSize('1.5 KiB');  // 1536
 * ```
 */
export function parseSize(text: string, path = 'size'): number {
  const match = SIZE.exec(text);
  const factor = match?.[2] === undefined ? undefined : UNITS[match[2].toLowerCase()];
  if (!match?.[1] || factor === undefined) {
    throw new ConfigurationError([
      {
        path,
        message: `expected a size such as "100MB" (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got ${JSON.stringify(text)}`,
      },
    ]);
  }
  return Math.floor(Number(match[1]) * factor);
}
