import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { OperatorState } from './admin/operator-state.ts';
import { buildApp } from './app.ts';
import { FsBlobStore } from './blob/fs-blob-store.ts';
import type { HostHeartbeat } from './compute/agents/host-heartbeat.ts';
import type { ComputeDriver } from './compute/driver.ts';
import type { Config } from './config.ts';
import type { Context } from './context.ts';
import { BLOBS_DIR, secureDataDir } from './data-dir.ts';
import { migrateToLatest } from './db/migrate.ts';
import { type DatabaseHandle, openDatabase } from './db/open.ts';
import { type RunningNameserver, startConfiguredNameserver } from './dns/configured-nameserver.ts';
import { parseHostPort } from './dns/host-port.ts';
import type { ZoneSource } from './dns/zone.ts';
import { type BootstrapResult, ensureBootstrap } from './domain/account/bootstrap.ts';
import { syncCatalog } from './domain/catalog/catalog.repository.ts';
import { loadCatalog } from './domain/catalog/catalog.ts';
import { databaseZoneSource } from './domain/domains/zone-source.ts';
import { startNodeSampling } from './domain/nodes/stats/node-sampler.jobs.ts';
import { jobHandlers } from './job-handlers.ts';
import type { JobHandler } from './jobs/handler.ts';
import { Worker } from './jobs/worker.ts';
import { stdoutLogger } from './logger.ts';
import { EgressPolicy } from './net/egress.ts';
import { type Random, randomHex, SeededRandom, systemRandom } from './random.ts';
import { type ServingParts, servingReadiness } from './readiness.ts';
import { startAgentHeartbeat } from './runtime-agent.ts';
import { computeDriverFor, computeSummary, enqueueComputeEvent } from './runtime-compute.ts';
import { openSecretBox } from './secrets/secret-box.ts';
import { type Clock, FixedClock, ServiceClock, SystemClock, Timing } from './time/clock.ts';

export interface RuntimeOptions {
  /**
   * serve: HTTP (and the worker unless turned off); worker: only the job worker; agent: a compute
   * host's driver and a worker for its jobs alone (`agentHost`); tool: only a context (CLI commands).
   */
  role: 'serve' | 'worker' | 'agent' | 'tool';
  /** The agent's host name (role `agent`). */
  agentHost?: string;
  logger?: Logger;
  /** The base of the service clock (tests); the operator's persisted offset is added to it. */
  clock?: Clock;
  random?: Random;
  /** PostgreSQL only: run in this schema (tests). */
  pgSchema?: string;
  /** Extra job kinds (tests). */
  jobHandlers?: readonly JobHandler[];
  /** Where serve's nameserver (CUMULO_DNS_LISTEN) finds its zones: the domains in the database unless told otherwise. */
  zoneSource?: (ctx: Context) => ZoneSource;
  /** What runs nodes (tests); none by default: nodes are simulated. */
  compute?: ComputeDriver;
}

export interface Runtime {
  ctx: Context;
  database: DatabaseHandle;
  app: FastifyInstance | null;
  worker: Worker | null;
  bootstrap: BootstrapResult | null;
  /** serve's authoritative nameserver, when CUMULO_DNS_LISTEN turns it on. */
  nameserver: RunningNameserver | null;
  /** How nodes run (CUMULO_COMPUTE=qemu), for the start banner; null while they are simulated. */
  computeSummary: string | null;
  /** Stops the nameserver after its in-flight answers, the worker after its current job, closes HTTP after in-flight requests, closes the database. */
  close(): Promise<void>;
}

/**
 * The egress policy of the operator's ranges. A server names its own addresses as it binds them (a
 * port 0 is only known then); a worker or a command, which binds none, takes the server's from the
 * same configuration.
 */
function egressPolicyOf(config: Config, role: RuntimeOptions['role']): EgressPolicy {
  const egress = new EgressPolicy({ allow: config.egressAllow, deny: config.egressDeny });
  if (role !== 'serve') {
    egress.addOwnListener(config.host, config.port);
    const dns = config.dnsListen === undefined ? null : parseHostPort(config.dnsListen, 53, { allowPortZero: true });
    if (dns) egress.addOwnListener(dns.host, dns.port);
  }
  return egress;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const log = options.logger ?? stdoutLogger(config.logLevel, config.logFormat);
  secureDataDir(config.dataDir);
  // Before the database: a start that cannot read its key changes nothing.
  const secrets = openSecretBox(config);
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  let compute: ComputeDriver | null = null;
  let heartbeat: HostHeartbeat | null = null;
  try {
    const applied = await migrateToLatest(database.db, database.kind);
    if (applied.length) log.info({ applied }, 'database migrated');
    const catalog = loadCatalog(config.catalogPath);
    const seeded = config.seed !== undefined;
    const clock = new ServiceClock(options.clock ?? (seeded ? new FixedClock(Date.parse(config.startTime)) : new SystemClock()));
    const operator = new OperatorState(database.db, clock, catalog);
    await operator.reload();
    if (options.role === 'serve') await syncCatalog(database.db, catalog);
    const random = options.random ?? (config.seed !== undefined ? new SeededRandom(config.seed) : systemRandom);
    // Servers and workers start their seeded stream where the state is; a command gets one of its own.
    random.reposition(
      options.role === 'tool' ? `tool:${clock.offsetMs}:${randomHex(systemRandom, 8)}` : `start:${clock.offsetMs}`,
    );
    const egress = egressPolicyOf(config, options.role);
    compute = options.compute ?? computeDriverFor(config, log, database.db);
    let worker: Worker | null = null;
    let drainer: Worker | null = null;
    const ctx: Context = {
      config,
      db: database.db,
      dbKind: database.kind,
      dbLocation: database.location,
      clock,
      timing: new Timing(clock, config.timeScale),
      random,
      catalog,
      log,
      blobs: new FsBlobStore(path.join(config.dataDir, BLOBS_DIR)),
      secrets,
      egress,
      compute,
      operator,
      wakeWorker: () => worker?.wake(),
      runDueJobs: () => drainer?.drain() ?? Promise.resolve(0),
    };
    const handlers = [...jobHandlers(ctx.compute !== null), ...(options.jobHandlers ?? [])];
    drainer = new Worker(ctx, handlers, { pollMs: config.workerPollMs });
    const bootstrap = options.role === 'serve' ? await ensureBootstrap(ctx, config.bootstrapToken) : null;
    const agentHost = options.role === 'agent' ? (options.agentHost ?? '') : null;
    // Compute belongs to the process that runs jobs: it adopts the machines left running and owns their events.
    // Agents' reports are what any process of CUMULO_COMPUTE=agents answers from, with a worker or not.
    const runsJobs = options.role === 'worker' || (options.role === 'serve' && config.inProcessWorker);
    if (runsJobs || options.role === 'agent' || config.compute === 'agents')
      await compute?.open(enqueueComputeEvent(ctx, agentHost));
    // The sampler reads the machines of this process's driver: one host's, without agents.
    if (runsJobs && config.compute === 'qemu' && agentHost === null) await startNodeSampling(ctx);
    if (agentHost !== null) heartbeat = await startAgentHeartbeat(ctx, agentHost);
    // With a seed, due jobs run before each request instead (src/admin/operator-hook.ts), so that what
    // a request sees depends on the request sequence alone.
    if (
      options.role === 'worker' ||
      options.role === 'agent' ||
      (options.role === 'serve' && config.inProcessWorker && !seeded)
    ) {
      worker = new Worker(ctx, handlers, { pollMs: config.workerPollMs, parallel: config.workerParallel, host: agentHost });
      worker.start();
    }
    const parts: ServingParts = { worker, nameserver: null };
    const app = options.role === 'serve' ? await buildApp(ctx, servingReadiness(ctx, parts)) : null;
    app?.addHook('onListen', async () => {
      for (const a of app.addresses()) if (typeof a !== 'string') egress.addOwnListener(a.address, a.port);
    });
    // Last: nothing that can fail comes after it, so the error path below has no sockets to close.
    const nameserver =
      options.role === 'serve' ? await startConfiguredNameserver(ctx, (options.zoneSource ?? databaseZoneSource)(ctx)) : null;
    parts.nameserver = nameserver;
    if (nameserver) {
      const bound = parseHostPort(nameserver.address, 53);
      if (bound) egress.addOwnListener(bound.host, bound.port);
    }
    return {
      ctx,
      database,
      app,
      worker,
      bootstrap,
      nameserver,
      computeSummary: computeSummary(config, compute),
      async close() {
        await heartbeat?.stop();
        await nameserver?.close();
        await worker?.stop();
        await app?.close();
        await compute?.close();
        await database.close();
      },
    };
  } catch (err) {
    await heartbeat?.stop();
    await compute?.close();
    await database.close();
    throw err;
  }
}
