import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * scrypt at the least cost the service allows (1 MiB, a millisecond or two) in the tests' servers and
 * apps: the sign-in tests check hundreds of passwords. passwords.test.ts checks the default cost.
 */
export const TEST_PASSWORD_HASH_COST = 10;

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The `cumulo` command of this checkout, which the tests run as processes. */
export const CUMULO_BIN = path.join(ROOT, 'bin', 'cumulo.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Nothing accepts connections on the port any more. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * Starts `cumulo serve` (or another server `script`, such as the benchmark's bare server) as a real
 * process on a free port and waits until /healthz answers. Its output is kept in memory, or
 * appended to `logFile` when one is given (a server under load writes more than memory should hold).
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = ['serve'],
  script: string = CUMULO_BIN,
  logFile?: string,
): Promise<ServerProcess> {
  return startServer([process.execPath, script, ...args], env, { logFile });
}

/**
 * Starts the server through a launcher such as `npm start` or `npx cumulo serve` (`command`, run in
 * the repository unless `cwd` says where), as the leader of a process group of its own that the test
 * may end whole. With `wholeEnv`, `env` is its whole environment (with the port), not added to this
 * process's.
 */
export async function startLaunchedServer(
  command: string[],
  env: Record<string, string | undefined>,
  options: { cwd?: string; wholeEnv?: boolean } = {},
): Promise<ServerProcess> {
  return startServer(command, env, { cwd: options.cwd ?? ROOT, detached: true, wholeEnv: options.wholeEnv ?? false });
}

async function startServer(
  [file, ...args]: string[],
  env: Record<string, string | undefined>,
  options: { logFile?: string | undefined; cwd?: string; detached?: boolean; wholeEnv?: boolean },
): Promise<ServerProcess> {
  if (file === undefined) throw new Error('no command');
  const { logFile } = options;
  const port = await freePort();
  let out = '';
  const logFd = logFile === undefined ? undefined : fs.openSync(logFile, 'a');
  const child = spawn(file, args, {
    env: options.wholeEnv
      ? { ...env, PORT: String(port), HOST: '127.0.0.1' }
      : {
          ...process.env,
          LOG_LEVEL: 'warn',
          PORT: String(port),
          HOST: '127.0.0.1',
          CUMULO_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
          ...env,
        },
    stdio: logFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    detached: options.detached ?? false,
  });
  if (logFd !== undefined) fs.closeSync(logFd);
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const output = logFile === undefined ? () => out : () => fs.readFileSync(logFile, 'utf8');
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      endProcess(child, options.detached ?? false);
      throw new Error(`server did not become healthy:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { baseUrl, child, output, exited };
}

/** SIGKILL to the process, or to its whole process group when it leads one. */
export function endProcess(child: ChildProcess, group: boolean): void {
  try {
    if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // already gone
  }
}
