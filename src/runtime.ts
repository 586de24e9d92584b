import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import { buildApp } from './app.ts';
import { FsBlobStore } from './blob/fs-blob-store.ts';
import type { Config } from './config.ts';
import type { Context } from './context.ts';
import { migrateToLatest } from './db/migrate.ts';
import { type DatabaseHandle, openDatabase } from './db/open.ts';
import { type BootstrapResult, ensureBootstrap } from './domain/account/bootstrap.ts';
import { syncCatalog } from './domain/catalog/catalog.repository.ts';
import { loadCatalog } from './domain/catalog/catalog.ts';
import type { JobHandler } from './jobs/handler.ts';
import { JOB_HANDLERS } from './jobs/handlers.ts';
import { Worker } from './jobs/worker.ts';
import { type Random, systemRandom } from './random.ts';
import { type Clock, SystemClock, Timing } from './time/clock.ts';

export interface RuntimeOptions {
  /** serve: HTTP (and the worker unless turned off); worker: only the job worker; tool: only a context (CLI commands). */
  role: 'serve' | 'worker' | 'tool';
  logger?: Logger;
  clock?: Clock;
  random?: Random;
  /** PostgreSQL only: run in this schema (tests). */
  pgSchema?: string;
  /** Extra job kinds (tests). */
  jobHandlers?: readonly JobHandler[];
}

export interface Runtime {
  ctx: Context;
  database: DatabaseHandle;
  app: FastifyInstance | null;
  worker: Worker | null;
  bootstrap: BootstrapResult | null;
  /** Stops the worker after its current job, closes HTTP after in-flight requests, closes the database. */
  close(): Promise<void>;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const log = options.logger ?? pino({ level: config.logLevel });
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  try {
    const applied = await migrateToLatest(database.db, database.kind);
    if (applied.length) log.info({ applied }, 'database migrated');
    const catalog = loadCatalog(config.catalogPath);
    if (options.role === 'serve') await syncCatalog(database.db, catalog);
    const clock = options.clock ?? new SystemClock();
    let worker: Worker | null = null;
    const ctx: Context = {
      config,
      db: database.db,
      dbKind: database.kind,
      clock,
      timing: new Timing(clock, config.timeScale),
      random: options.random ?? systemRandom,
      catalog,
      log,
      blobs: new FsBlobStore(path.join(config.dataDir, 'blobs')),
      wakeWorker: () => worker?.wake(),
    };
    const bootstrap = options.role === 'serve' ? await ensureBootstrap(ctx, config.bootstrapToken) : null;
    if (options.role === 'worker' || (options.role === 'serve' && config.inProcessWorker)) {
      worker = new Worker(ctx, [...JOB_HANDLERS, ...(options.jobHandlers ?? [])], { pollMs: config.workerPollMs });
      worker.start();
    }
    const app = options.role === 'serve' ? await buildApp(ctx) : null;
    return {
      ctx,
      database,
      app,
      worker,
      bootstrap,
      async close() {
        await worker?.stop();
        await app?.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
