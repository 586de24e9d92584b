import type { FastifyInstance } from 'fastify';
import { VERSION } from '../version.ts';

/** off: the configuration does not ask for the part, so it cannot make the server unready. */
export type PartStatus = 'up' | 'down' | 'off';

/** A part's state, with what else says which part it is (its kind, its address). */
export type PartReport = { status: PartStatus } & Record<string, string | number>;

/** The parts /readyz reports, by name, each checked on every request. */
export type Readiness = Readonly<Record<string, () => PartReport | Promise<PartReport>>>;

async function report(check: () => PartReport | Promise<PartReport>): Promise<PartReport> {
  try {
    return await check();
  } catch (err) {
    return { status: 'down', problem: err instanceof Error ? err.message : String(err) };
  }
}

/** /healthz: the process answers. /readyz: each part with its state (and Cumulo's version); 503 when one is down. */
export function registerHealth(app: FastifyInstance, readiness: Readiness): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const parts = Object.entries(readiness);
    const reports = await Promise.all(parts.map(([, check]) => report(check)));
    const down = reports.some((r) => r.status === 'down');
    const checks = Object.fromEntries(parts.map(([name], i) => [name, reports[i]]));
    return reply.status(down ? 503 : 200).send({ status: down ? 'unavailable' : 'ready', version: VERSION, checks });
  });
}
