// Small display helpers shared by the pages.

/** `2026-11-28T05:00:00.000Z` as the analyst's local date and time; the text itself when it is not a date. */
export function when(iso: string | undefined): string {
  if (!iso) return '—';
  const time = Date.parse(iso);
  return Number.isNaN(time) ? iso : new Date(time).toLocaleString();
}

/** A number of milliseconds, rounded for reading. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

/** The indicators of a pasted text: one per line, comma or whitespace; blanks and duplicates dropped. */
export function indicatorsOf(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,;]+/)
        .map((part) => part.trim())
        .filter((part) => part.length > 0),
    ),
  ];
}
