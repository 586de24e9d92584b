import type { Metric, Registry } from 'prom-client';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Answers per bucket (not cumulative), the last for those above every bound. */
  buckets: number[];
}

/**
 * `http_requests_total` and `http_request_duration_seconds` by method, route and status, counted here
 * and handed to prom-client's registry to write out when /metrics is read. prom-client's own counter
 * and histogram check and hash their labels on every answer; a request line is counted in a few
 * additions instead.
 */
export class RequestMetrics {
  readonly #series = new Map<string, Series>();

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      series = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0),
      };
      this.#series.set(key, series);
    }
    series.count += 1;
    series.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[i] as number)) i += 1;
    series.buckets[i] = (series.buckets[i] as number) + 1;
  }

  /** Adds both metrics to `registry`, in the form its own metrics give their values. */
  register(registry: Registry): void {
    const all = () => [...this.#series.values()];
    const counter = {
      name: 'http_requests_total',
      help: 'HTTP requests answered',
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...counter, values: all().map((s) => ({ labels: s.labels, value: s.count })) }),
    };
    const name = 'http_request_duration_seconds';
    const histogram = {
      name,
      help: 'Time to answer HTTP requests',
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({
        ...histogram,
        values: all().flatMap((s) => {
          let below = 0;
          const buckets = [...LATENCY_BUCKETS, '+Inf' as const].map((le, i) => {
            below += s.buckets[i] as number;
            return { labels: { le, ...s.labels }, value: below, metricName: `${name}_bucket` };
          });
          return [
            ...buckets,
            { labels: s.labels, value: s.sum, metricName: `${name}_sum` },
            { labels: s.labels, value: s.count, metricName: `${name}_count` },
          ];
        }),
      }),
    };
    // The registry takes any object that gives its values as its own metrics do (name, help, type, get).
    registry.registerMetric(counter as unknown as Metric);
    registry.registerMetric(histogram as unknown as Metric);
  }
}
