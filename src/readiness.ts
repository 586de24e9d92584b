import type { Context } from './context.ts';
import { pingDatabase } from './db/open.ts';
import type { RunningNameserver } from './dns/configured-nameserver.ts';
import type { PartReport, Readiness } from './http/health.ts';
import type { Worker } from './jobs/worker.ts';

/** The parts of a serving process; the nameserver is set once it listens, after the app is built. */
export interface ServingParts {
  worker: Worker | null;
  nameserver: RunningNameserver | null;
}

/**
 * What /readyz reports: the database; the job worker and the managed service probes it runs (off
 * when this process runs no worker: CUMULO_WORKER=off, or CUMULO_SEED's jobs run before each
 * request); the nameserver (off without CUMULO_DNS_LISTEN).
 */
export function servingReadiness(ctx: Context, parts: ServingParts): Readiness {
  const worker = (): PartReport => {
    if (!parts.worker) return { status: 'off' };
    return { status: parts.worker.alive ? 'up' : 'down' };
  };
  return {
    database: async () => ({ status: (await pingDatabase(ctx.db)) ? 'up' : 'down', kind: ctx.dbKind }),
    worker,
    nameserver: (): PartReport => {
      const listen = ctx.config.dnsListen;
      if (listen === undefined) return { status: 'off' };
      const running = parts.nameserver;
      return running?.listening() ? { status: 'up', listen: running.address } : { status: 'down', listen };
    },
    // The probes are jobs of the worker's (each queues the next): they run while it does.
    probes: worker,
  };
}
