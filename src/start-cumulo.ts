import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { pino } from 'pino';
import { advanceClock } from './admin/clock.service.ts';
import type { ClockView } from './admin/clock-view.ts';
import { resetAll } from './admin/reset.service.ts';
import { restoreSnapshot } from './admin/restore.service.ts';
import { streamWriter, writeSnapshot } from './admin/snapshot.service.ts';
import { loadConfig } from './config.ts';
import { randomHex, systemRandom } from './random.ts';
import { startRuntime } from './runtime.ts';

export interface StartCumuloOptions {
  /** Where Cumulo keeps its data, kept after `stop()`; a throwaway folder, removed by `stop()`, when not given. */
  dataDir?: string;
  /** A PostgreSQL database (`postgres://...`) instead of the embedded one in the data dir. */
  databaseUrl?: string;
  /** The port to listen on: 0, any free one, unless given. */
  port?: number;
  /** The address to listen on: 127.0.0.1 unless given. */
  host?: string;
  /** The token of the user `admin` (at least 32 characters); made up when not given. */
  token?: string;
  /** Other settings as the environment gives them (`CUMULO_COMPUTE: 'qemu'`, `CUMULO_TIME_SCALE: '0.01'`, ...); the process's own environment is not read. */
  env?: Readonly<Record<string, string>>;
  /** The log's level (pino's names, to stdout); `silent` unless given. */
  logLevel?: string;
}

/** A Cumulo started by `startCumulo`, serving until `stop()`. */
export interface RunningCumulo {
  /** The API's base URL, `http://127.0.0.1:<port>/v4`. */
  url: string;
  /** A token of the user `admin`, for the `Authorization: Bearer` header. */
  token: string;
  dataDir: string;
  /** Every account, node, domain and event gone: as just installed, `admin` and its token made again. */
  reset(): Promise<void>;
  /** Keeps the whole state under a name (a file in the data dir), for `restore`. */
  snapshot(): Promise<string>;
  /** Puts back the state a `snapshot()` kept, whole. */
  restore(name: string): Promise<void>;
  /** Moves the service clock forward (time-based work that came due runs): by seconds, or to an instant. */
  advanceClock(seconds: number): Promise<ClockView>;
  setClock(to: Date | string): Promise<ClockView>;
  /** Closes everything it opened, and removes a throwaway data dir. */
  stop(): Promise<void>;
}

/**
 * Starts Cumulo in this process, ready when the promise resolves: for a test run's global setup,
 * one that throws away what it made at `stop()` unless given a data dir to keep.
 */
export async function startCumulo(options: StartCumuloOptions = {}): Promise<RunningCumulo> {
  const throwaway = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-'));
  const token = options.token ?? randomHex(systemRandom, 32);
  const config = loadConfig({
    PORT: String(options.port ?? 0),
    HOST: options.host ?? '127.0.0.1',
    ...options.env,
    CUMULO_DATA_DIR: dataDir,
    CUMULO_BOOTSTRAP_TOKEN: token,
    ...(options.databaseUrl !== undefined && { DATABASE_URL: options.databaseUrl }),
  });
  const removeThrowaway = () => {
    if (throwaway) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  let address: string;
  try {
    runtime = await startRuntime(config, { role: 'serve', logger: pino({ level: options.logLevel ?? 'silent' }) });
    try {
      address = (await runtime.app?.listen({ port: config.port, host: config.host })) ?? '';
    } catch (error) {
      await runtime.close();
      throw error;
    }
  } catch (error) {
    removeThrowaway();
    throw error;
  }
  const { ctx } = runtime;
  const snapshots = path.join(dataDir, 'snapshots');
  let taken = 0;
  const advance = (seconds: number) => advanceClock(ctx, seconds);

  return {
    url: `${address}/v4`,
    token,
    dataDir,
    async reset() {
      await resetAll(ctx);
    },
    async snapshot() {
      taken += 1;
      const name = `snapshot-${taken}`;
      fs.mkdirSync(snapshots, { recursive: true, mode: 0o700 });
      const out = fs.createWriteStream(path.join(snapshots, `${name}.ndjson`), { mode: 0o600 });
      await writeSnapshot(ctx, streamWriter(out));
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      return name;
    },
    async restore(name) {
      const file = path.join(snapshots, `${name}.ndjson`);
      if (!/^snapshot-\d+$/.test(name) || !fs.existsSync(file)) throw new Error(`no snapshot named ${JSON.stringify(name)}`);
      const input = fs.createReadStream(file);
      try {
        await restoreSnapshot(ctx, readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }));
      } finally {
        input.destroy();
      }
    },
    advanceClock: advance,
    async setClock(to) {
      const target = new Date(to).getTime();
      if (Number.isNaN(target)) throw new Error(`not an instant: ${String(to)}`);
      const seconds = (target - ctx.clock.nowMs()) / 1000;
      if (seconds < 0) throw new Error(`the service clock moves only forward: ${new Date(target).toISOString()} is past`);
      return advance(seconds);
    },
    async stop() {
      await runtime.close();
      removeThrowaway();
    },
  };
}
