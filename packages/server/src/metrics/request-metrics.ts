import type { Metric, Registry } from 'prom-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Series {
  method: string;
  route: string;
  status: string;
  /** Requests in each bucket (not cumulative); the last slot is above the largest bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface MetricValue {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** What prom-client's registry asks of a metric: its name, help, type and current values. */
interface CollectedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' }>;
  reset(): void;
}

/**
 * The server's per-request series, `threatlib_http_requests_total` (by method, route and status) and
 * `threatlib_http_request_duration_seconds` (by method and route), kept in plain arrays and handed to prom-client's
 * registry when scraped. prom-client's own Counter and Histogram hash their label object on every observation, a
 * cost paid on each request; here a request costs a map lookup and a bucket increment.
 */
export class RequestMetrics {
  readonly #series = new Map<string, Series>();

  constructor(registry: Registry) {
    // The registry reads a metric through name, help, type, get() and reset() only (prom-client's own custom
    // collectors rely on the same); its Metric type is the class, hence the cast.
    const register = (metric: CollectedMetric) => registry.registerMetric(metric as unknown as Metric);
    register(this.#metric('threatlib_http_requests_total', 'counter', this.#requestValues));
    register(this.#metric('threatlib_http_request_duration_seconds', 'histogram', this.#durationValues));
  }

  /** Records one answered request. */
  observe(method: string, route: string, status: number, seconds: number): void {
    // The set of series is bounded: methods are the HTTP parser's fixed list, routes the registered ones or
    // "unmatched", statuses the ones the server answers with.
    const key = `${method} ${route} ${status}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = {
        method,
        route,
        status: String(status),
        buckets: new Float64Array(BUCKETS.length + 1),
        sum: 0,
        count: 0,
      };
      this.#series.set(key, series);
    }
    let slot = 0;
    while (slot < BUCKETS.length && seconds > (BUCKETS[slot] as number)) slot++;
    series.buckets[slot] = (series.buckets[slot] as number) + 1;
    series.sum += seconds;
    series.count++;
  }

  readonly #requestValues = (): MetricValue[] =>
    [...this.#series.values()].map((s) => ({
      labels: { method: s.method, route: s.route, status: s.status },
      value: s.count,
    }));

  readonly #durationValues = (): MetricValue[] => {
    // The histogram is by method and route: the series of each status are added up.
    const byRoute = new Map<
      string,
      { method: string; route: string; buckets: Float64Array; sum: number; count: number }
    >();
    for (const s of this.#series.values()) {
      const key = `${s.method} ${s.route}`;
      let total = byRoute.get(key);
      if (total === undefined) {
        total = { method: s.method, route: s.route, buckets: new Float64Array(BUCKETS.length + 1), sum: 0, count: 0 };
        byRoute.set(key, total);
      }
      for (let i = 0; i < s.buckets.length; i++)
        total.buckets[i] = (total.buckets[i] as number) + (s.buckets[i] as number);
      total.sum += s.sum;
      total.count += s.count;
    }
    const name = 'threatlib_http_request_duration_seconds';
    const values: MetricValue[] = [];
    for (const t of byRoute.values()) {
      const labels = { method: t.method, route: t.route };
      let cumulative = 0;
      BUCKETS.forEach((bound, i) => {
        cumulative += t.buckets[i] as number;
        values.push({ metricName: `${name}_bucket`, labels: { le: bound, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: t.count });
      values.push({ metricName: `${name}_sum`, labels, value: t.sum });
      values.push({ metricName: `${name}_count`, labels, value: t.count });
    }
    return values;
  };

  #metric(name: string, type: 'counter' | 'histogram', values: () => MetricValue[]): CollectedMetric {
    const help =
      type === 'counter'
        ? 'HTTP requests answered, by method, route and status code'
        : 'HTTP request latency, by method and route';
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
      reset: () => this.#series.clear(),
    };
  }
}
