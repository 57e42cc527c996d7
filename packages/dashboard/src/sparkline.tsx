// A sparkline drawn as SVG by hand: the feeds page needs a trend line per figure, a few dozen points each. A charting
// library (uPlot is ~45 KiB minified, Chart.js ~200 KiB) would be most of the page's weight for one polyline; this is
// 30 lines, needs no canvas and no inline style (the CSP allows none), and reads as an image with a text alternative.

/** Props of {@link Sparkline}. */
interface SparklineProps {
  /** The points, oldest first; null where there was no figure. */
  values: ReadonlyArray<number | null>;
  /** What the line shows, for screen readers (`latency p95 of feed_otx`). */
  label: string;
  width?: number;
  height?: number;
}

/** A small trend line of `values`, scaled to their own range; the last figure is named in the label. */
export function Sparkline({ values, label, width = 120, height = 28 }: SparklineProps) {
  const known = values.filter((value): value is number => value !== null);
  const last = known.at(-1);
  const max = Math.max(...known, 0);
  const min = Math.min(...known, max);
  const span = max - min || 1;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values
    .map((value, index) =>
      value === null
        ? undefined
        : `${(index * step).toFixed(1)},${(height - 2 - ((value - min) / span) * (height - 4)).toFixed(1)}`,
    )
    .filter((point): point is string => point !== undefined)
    .join(' ');
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={`${label}: ${last === undefined ? 'no figures yet' : `latest ${Math.round(last * 10) / 10}`}`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
    >
      {known.length > 1 ? <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" /> : null}
    </svg>
  );
}
