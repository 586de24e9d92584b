import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { consoleBuilt } from '../http/console.ts';
import { stderrLogger } from '../logger.ts';
import { type Runtime, startRuntime } from '../runtime.ts';
import { agentRefusal } from '../runtime-agent.ts';
import { VERSION } from '../version.ts';
import { writeFileWhole } from '../write-whole.ts';
import { onLauncherGone } from './launcher.ts';
import type { Command } from './main.ts';
import { startBanner } from './start-banner.ts';
import { text, wholeNumber } from './tool.ts';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Resolves once the runtime has closed gracefully, on SIGTERM, SIGINT or SIGHUP, or when the
 * launcher that started the process (`npm start`, `npx cumulo`) has ended. A second signal of the
 * same kind ends the process at once.
 */
function closeOnStop(runtime: Runtime): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (reason: { signal: NodeJS.Signals } | { launcher: 'gone' }) => {
      if (stopping) return;
      stopping = true;
      stopWatching();
      runtime.ctx.log.info(reason, 'shutting down: finishing in-flight requests and the running job');
      runtime.close().then(
        () => resolve(0),
        (err: unknown) => {
          runtime.ctx.log.error({ err }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    for (const signal of STOP_SIGNALS) process.once(signal, () => stop({ signal }));
    const stopWatching = onLauncherGone(() => stop({ launcher: 'gone' }));
  });
}

export const serve: Command = {
  summary: 'Run the API server (and, unless CUMULO_WORKER=off, the job worker)',
  usage: 'serve [--port <port>] [--print-url] [--ready-file <file>]',
  options: {
    port: { type: 'string', description: 'the port to listen on, 0 for any free one (default: PORT, else 8080)' },
    'print-url': {
      type: 'boolean',
      description: 'once listening, print the API base URL alone on stdout (the banner and the log go to stderr)',
    },
    'ready-file': { type: 'string', description: 'once listening, write {"url", "version", "pid"} as JSON to this file' },
  },
  async run(values) {
    const port = values.port === undefined ? undefined : wholeNumber(values, 'port', 'a port from 0 to 65535');
    const config = loadConfig(process.env, port === undefined ? {} : { port });
    const printUrl = values['print-url'] === true;
    const runtime = await startRuntime(config, {
      role: 'serve',
      ...(printUrl && { logger: stderrLogger(config.logLevel, config.logFormat) }),
    });
    const app = runtime.app;
    if (!app) throw new Error('serve started without an HTTP app');
    let address: string;
    try {
      address = await app.listen({ port: config.port, host: config.host });
    } catch (err) {
      // The worker, the nameserver and the machines' connections would keep the process running.
      await runtime.close();
      throw err;
    }
    const banner = printUrl ? process.stderr : process.stdout;
    banner.write(
      startBanner({
        address,
        database: runtime.database.location,
        bootstrap: runtime.bootstrap,
        fixedToken: config.bootstrapToken !== undefined,
        fixedPassword: config.bootstrapPassword !== undefined,
        consoleBuilt: consoleBuilt(),
        compute: runtime.computeSummary,
      }),
    );
    if (runtime.nameserver) banner.write(`Authoritative DNS at ${runtime.nameserver.address} (UDP and TCP)\n`);
    if (printUrl) process.stdout.write(`${address}/v4\n`);
    const readyFile = text(values, 'ready-file');
    if (readyFile !== undefined)
      writeFileWhole(readyFile, `${JSON.stringify({ url: `${address}/v4`, version: VERSION, pid: process.pid })}\n`);
    return closeOnStop(runtime);
  },
};

export const worker: Command = {
  summary: 'Run only the job worker (scale-out: any number share one PostgreSQL database)',
  usage: 'worker',
  options: {},
  async run() {
    const runtime = await startRuntime(loadConfig(), { role: 'worker' });
    runtime.ctx.log.info('worker started');
    return closeOnStop(runtime);
  },
};

export const agent: Command = {
  summary: "Run a compute host's agent: its machines, and the jobs of the nodes placed on it (PostgreSQL)",
  usage: 'agent --host NAME',
  options: { host: { type: 'string', description: "this host's name, unique among the agents (e.g. its hostname)" } },
  async run(values) {
    const config = loadConfig();
    const host = typeof values.host === 'string' ? values.host : undefined;
    const refusal = agentRefusal(config, host);
    if (refusal) {
      process.stderr.write(`${refusal}\n`);
      return 2;
    }
    const runtime = await startRuntime(config, { role: 'agent', agentHost: host });
    runtime.ctx.log.info({ host, compute: runtime.computeSummary }, 'agent started');
    return closeOnStop(runtime);
  },
};

export const migrate: Command = {
  summary: 'Apply pending database migrations and exit',
  usage: 'migrate',
  options: {},
  async run() {
    const config = loadConfig();
    const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      const applied = await migrateToLatest(database.db, database.kind);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'already up to date\n');
      return 0;
    } finally {
      await database.close();
    }
  },
};
