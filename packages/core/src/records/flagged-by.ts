/** The sources of a correlation that said malicious or suspicious, in the order they were asked. */
export function flaggedBy(correlation: {
  readonly contributions: ReadonlyArray<{ readonly feed: string; readonly verdict: string }>;
}): string[] {
  return correlation.contributions
    .filter((c) => c.verdict === 'malicious' || c.verdict === 'suspicious')
    .map((c) => c.feed);
}
