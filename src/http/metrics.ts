import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Context } from '../context.ts';
import { countQueuedJobs } from '../jobs/queue.ts';
import { withoutWaiting } from './front-door.ts';

/** Prometheus metrics at /metrics: requests and latency per route and status, and the job queue depth. */
export function registerMetrics(app: FastifyInstance, ctx: Context): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  type Label = (typeof labelNames)[number];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    name: 'cumulo_jobs_queued',
    help: 'Jobs waiting in the queue, due or not',
    registers: [registry],
    async collect() {
      this.set(await countQueuedJobs(ctx.db));
    },
  });

  // The series of each method, route and status, looked up once: prom-client hashes the labels on every use.
  const series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<Label> }>();
  app.addHook(
    'onResponse',
    withoutWaiting((request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${request.method} ${reply.statusCode} ${route}`;
      let one = series.get(key);
      if (!one) {
        const labels = { method: request.method, route, status: String(reply.statusCode) };
        one = { count: requests.labels(labels), time: latency.labels(labels) };
        series.set(key, one);
      }
      one.count.inc();
      one.time.observe(reply.elapsedTime / 1000);
    }),
  );

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
