import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process.ts';

/** The processes a benchmark starts and watches: servers, the worker, the seed; their CPU time and memory. */

export type { ServerProcess };

/** A process whose CPU time counts towards a server's cost (a `cumulo worker` beside two servers). */
export interface Measurable {
  child: { pid?: number | undefined };
}

const CAN_PIN = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

/** Whether processes can be pinned to cores here (taskset from util-linux, Linux only). */
export function canPin(): boolean {
  return CAN_PIN;
}

/** Pins every thread of a process to one core, or a list (`0-1`) (`taskset -a -c`); a no-op where taskset is missing. */
export function pin(pid: number | undefined, core: number | string): void {
  if (!CAN_PIN || pid === undefined) return;
  spawnSync('taskset', ['-a', '-c', '-p', String(core), String(pid)], { stdio: 'ignore' });
}

/** Starts `cumulo serve` (or another server script), its output to a log file, and when asked pins it to a core. */
export async function startProcess(
  env: Record<string, string>,
  options: { script?: string; core?: number; logFile: string },
): Promise<ServerProcess> {
  const server = await startServerProcess(env, undefined, options.script, options.logFile);
  if (options.core !== undefined) pin(server.child.pid, options.core);
  return server;
}

/** Starts `cumulo worker`, which has no HTTP port: ready once it has logged that it started. */
export function startWorkerProcess(env: Record<string, string>, script: string): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    // At info, whatever the servers log at: the line it starts with says it is ready.
    const child = spawn(process.execPath, [script, 'worker'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let ready = false;
    const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
    const timer = setTimeout(() => reject(new Error(`the worker did not start:\n${out}`)), 20_000);
    const onData = (d: Buffer) => {
      if (ready) return;
      out += d;
      if (!out.includes('worker started')) return;
      ready = true;
      clearTimeout(timer);
      resolve({ baseUrl: '', child, output: () => out, exited });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited with ${code}:\n${out}`));
    });
  });
}

export async function stop(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await server.exited;
  clearTimeout(timer);
}

/** Runs a script to its end (the seed), its output passed through. */
export function runProcess(script: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code}`))));
  });
}

/** A memory line of /proc/<pid>/status (VmRSS, RssAnon, RssFile, VmHWM), in MB. */
export function procStatusMb(pid: number | undefined, field: string): number | null {
  if (pid === undefined) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/** Resident memory of a process, in MB, from /proc (Linux). */
export function rssMb(pid: number | undefined): number | null {
  return procStatusMb(pid, 'VmRSS');
}

/** Where a server's memory is: anonymous and file-backed resident pages, and the V8 heap (from /metrics). */
export async function memoryDetail(server: ServerProcess): Promise<string> {
  const mb = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(0)} MB`);
  const pid = server.child.pid;
  let heap = '';
  try {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
    heap = `; V8 heap ${metric('nodejs_heap_size_used_bytes').toFixed(0)} MB used of ${metric('nodejs_heap_size_total_bytes').toFixed(0)} MB`;
  } catch {
    heap = '';
  }
  return `anonymous ${mb(procStatusMb(pid, 'RssAnon'))}, file-backed ${mb(procStatusMb(pid, 'RssFile'))}, peak ${mb(procStatusMb(pid, 'VmHWM'))}${heap}`;
}

/** CPU time a process has used so far, in ms: user and system (from /proc; Linux clock ticks are 10 ms). */
export function cpuMs(pid: number | undefined): { user: number; sys: number } | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}
