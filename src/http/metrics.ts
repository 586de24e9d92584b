import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Context } from '../context.ts';
import { countQueuedJobs } from '../jobs/queue.ts';
import { withoutWaiting } from './front-door.ts';
import { RequestMetrics } from './request-metrics.ts';

/** Prometheus metrics at /metrics: requests and latency per route and status, and the job queue depth. */
export function registerMetrics(app: FastifyInstance, ctx: Context): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestMetrics();
  requests.register(registry);
  new Gauge({
    name: 'cumulo_jobs_queued',
    help: 'Jobs waiting in the queue, due or not',
    registers: [registry],
    async collect() {
      this.set(await countQueuedJobs(ctx.db));
    },
  });

  app.addHook(
    'onResponse',
    withoutWaiting((request, reply) => {
      requests.record(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    }),
  );

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
