// The `@threatlib/core/metrics` entry: kept apart from the main entry so that prom-client loads only for its users.
export {
  type ClientMetricsOptions,
  createClientMetrics,
  type LabelledClient,
  type MetricsClient,
} from './client-metrics.js';
