/** A key as option names are compared: without case or separators (`max_concurrency` is `maxConcurrency`). */
export function optionKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The known option an unknown key was probably meant to be, compared without case or separators (`windowMS`,
 * `max_concurrency`): the nearest within one edit for keys of four characters or fewer, two up to eight, three beyond
 * (a typo, a missing letter, a swapped pair: `tokesn`, `performence`); undefined when none is that close. Among
 * equals, the first in `known`.
 *
 * @example
 * ```ts
 * closestOption('windowMS', ['windowMs', 'max']); // 'windowMs'
 * closestOption('max_concurrency', ['maxConcurrency']); // 'maxConcurrency'
 * closestOption('timeout', ['windowMs', 'max']); // undefined
 * ```
 */
export function closestOption(key: string, known: readonly string[]): string | undefined {
  const wanted = optionKey(key);
  const allowed = wanted.length <= 4 ? 1 : wanted.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const option of known) {
    const candidate = optionKey(option);
    // Lengths further apart than the edits allowed cannot be within them.
    if (Math.abs(candidate.length - wanted.length) > allowed) continue;
    const distance = editDistance(wanted, candidate);
    if (distance < bestDistance) {
      best = option;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b` (optimal string alignment). */
function editDistance(a: string, b: string): number {
  // Keys are short; a key past 100 characters is no typo of an option.
  if (a.length > 100 || b.length > 100) return Number.POSITIVE_INFINITY;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const previous = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = distance;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
