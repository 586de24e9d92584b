import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { FsBlobStore } from '../../src/blob/fs-blob-store.ts';
import type { ForwardedPort } from '../../src/compute/driver.ts';
import { busybox } from '../../src/compute/images/busybox.ts';
import { buildImage, DEFAULT_IMAGE_CACHE } from '../../src/compute/images/recipe.ts';
import { hostVethName } from '../../src/compute/qemu/bridge-names.ts';
import { BridgeNetwork } from '../../src/compute/qemu/bridge-network.ts';
import { machineFiles, machinesDir } from '../../src/compute/qemu/data-layout.ts';
import { killQemu, livePid } from '../../src/compute/qemu/qemu-process.ts';
import { BLOBS_DIR, COMPUTE_DIR } from '../../src/data-dir.ts';
import { storePublicImage } from '../../src/domain/images/public-image-data.ts';
import { holdLockFile } from '../../src/lock-file.ts';
import { ADMIN_TOKEN, tempDir } from './app.ts';
import { CUMULO_BIN, endProcess, type ServerProcess, startServerProcess } from './server-process.ts';
import { systemTool } from './system-tools.ts';

const run = promisify(execFile);

/** The tools a test of real nodes runs (QEMU, the image build, SSH). */
export const REAL_NODE_TOOLS = ['qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen'] as const;

export interface RealCloud {
  /** The server process now (a restart starts another). */
  server(): ServerProcess;
  /** Kills the server with SIGKILL (its machines run on) and starts another on the same data. */
  restart(): Promise<void>;
  dataDir: string;
  env: Record<string, string>;
  /** A v4 or admin call with the bootstrap (admin) token, or `token`; the body parsed when JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field in tests
  api(method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  /** Runs `npx cumulo ...` against the same data dir and settings; its stdout. */
  cli(...args: string[]): Promise<string>;
  /** Waits until the node's status is `status` (failing the test after `timeoutMs`); `token` for a node of another account. */
  waitForStatus(nodeId: number, status: string, timeoutMs?: number, token?: string): Promise<void>;
}

/**
 * A server process with real nodes (CUMULO_COMPUTE=qemu) on a fresh data dir, its worker in the
 * same process; `env` adds to or overrides the settings. Ended, machines and all, when the test ends.
 */
export async function startRealCloud(t: TestContext, env: Record<string, string> = {}): Promise<RealCloud> {
  let endServer = async () => {};
  // Added before tempDir's own hook, which removes the pid files killMachinesUnder reads: hooks run in the order they were added.
  t.after(async () => {
    await endServer();
    await killMachinesUnder(dataDir);
  });
  const dataDir = tempDir(t);
  const settings: Record<string, string> = {
    CUMULO_DATA_DIR: dataDir,
    CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
    CUMULO_ADMIN_TOKEN: ADMIN_TOKEN,
    CUMULO_COMPUTE: 'qemu',
    CUMULO_COMPUTE_MEMORY: '4096',
    // Disks are sparse files the tests barely write: promised at their full sizes they would need
    // tens of GB free on the machine (one test's nodes promise 75 GB), which a test run cannot count on.
    CUMULO_DISK_OVERCOMMIT: '20',
    CUMULO_WORKER_POLL_MS: '50',
    ...env,
  };
  let server = await startServerProcess(settings);
  endServer = async () => {
    endProcess(server.child, false);
    await server.exited;
  };
  const restart = async () => {
    await endServer();
    server = await startServerProcess(settings);
  };
  const api = async (method: string, url: string, body?: unknown, token = ADMIN_TOKEN) => {
    const res = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };
  const cli = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [CUMULO_BIN, ...args], {
      env: { ...process.env, ...settings, LOG_LEVEL: 'warn' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  };
  const waitForStatus = async (nodeId: number, status: string, timeoutMs = 180_000, token = ADMIN_TOKEN) => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      const res = await api('GET', `/v4/node/instances/${nodeId}`, undefined, token);
      last = res.body?.status;
      if (last === status) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.fail(`node ${nodeId} is ${last}, not ${status}, after ${timeoutMs / 1000} s:\n${server.output().slice(-4000)}`);
  };
  return { server: () => server, restart, dataDir, env: settings, api, cli, waitForStatus };
}

/**
 * The busybox image built (or found in the cache) and stored in the cloud's blob store, as
 * `npx cumulo images build busybox` does (images-build.test.ts runs the command itself), without a
 * process of its own.
 */
export async function storeBusybox(cloud: RealCloud): Promise<void> {
  const image = await buildImage(busybox, DEFAULT_IMAGE_CACHE);
  await storePublicImage(new FsBlobStore(path.join(cloud.dataDir, BLOBS_DIR)), 'busybox', image);
}

/** Held by the test whose bridge cloud runs: every cloud gives its nodes the same addresses, and two sets of host routes to them would clash. */
const BRIDGE_LOCK = path.join(os.tmpdir(), 'cumulo-test-bridge.lock');

/**
 * A cloud in bridge networking with a namespace of its own (removed after the cloud's machines) and
 * the busybox image built: what the bridge tests start from, one at a time. Bridge networking needs root.
 */
export async function startBridgeCloud(t: TestContext, env: Record<string, string> = {}): Promise<RealCloud & { netns: string }> {
  // Waits until no other test process runs a bridge cloud.
  const release = await holdLockFile(BRIDGE_LOCK);
  try {
    const netns = `cumulo-t-${randomInt(1 << 24).toString(16)}`;
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'bridge', CUMULO_NODE_NETNS: netns, ...env });
    // After the cloud's own hook, which ends its machines; the lock last, once the routes are gone.
    t.after(() => removeBridgeNamespace(netns));
    t.after(release);
    await storeBusybox(cloud);
    return { ...cloud, netns };
  } catch (error) {
    release();
    throw error;
  }
}

/** Kills every QEMU process whose pid file is under the data dir, and waits for it to end: machines outlive the server by design. */
export async function killMachinesUnder(dataDir: string): Promise<void> {
  const compute = path.join(dataDir, COMPUTE_DIR);
  const machines = machinesDir(compute);
  if (!fs.existsSync(machines)) return;
  for (const key of fs.readdirSync(machines)) {
    const { pid: pidFile } = machineFiles(compute, key);
    const pid = livePid(pidFile);
    if (pid !== null) await killQemu(pid, pidFile);
  }
}

/**
 * Removes a namespace of bridge networking (CUMULO_NODE_NETNS) and waits for its veth, and the host's
 * routes through it, to go; its machines must have ended.
 */
export async function removeBridgeNamespace(netns: string): Promise<void> {
  await new BridgeNetwork({ netns, log: pino({ level: 'silent' }) }).removeNamespace();
  const veth = hostVethName(netns);
  // The kernel dismantles a namespace in the background.
  const deadline = Date.now() + 10_000;
  while (fs.existsSync(`/sys/class/net/${veth}`)) {
    if (Date.now() > deadline) assert.fail(`the veth ${veth} outlived namespace ${netns}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits for the node's latest event of `action` to end; its status (`finished` or `failed`). */
export async function eventEnd(cloud: RealCloud, nodeId: number, action: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const events = (await cloud.api('GET', '/v4/account/events?page_size=100')).body.data as {
      action: string;
      status: string;
      entity: { id: number } | null;
    }[];
    const status = events.find((e) => e.action === action && e.entity?.id === nodeId)?.status;
    if (status === 'finished' || status === 'failed') return status;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`no end to ${action} of node ${nodeId}:\n${cloud.server().output().slice(-4000)}`);
}

/** An ed25519 key pair in a temporary directory: the private key's path and the public key's text. */
export async function sshKeyPair(t: TestContext): Promise<{ privateKey: string; publicKey: string }> {
  const privateKey = path.join(tempDir(t), 'id_ed25519');
  await run(systemTool('ssh-keygen'), ['-q', '-t', 'ed25519', '-N', '', '-C', 'cumulo-test', '-f', privateKey]);
  return { privateKey, publicKey: fs.readFileSync(`${privateKey}.pub`, 'utf8').trim() };
}

/** Runs `command` on root@host:port over SSH with the key; rejects when SSH fails (refused, timed out, denied). */
export async function sshRun(
  target: { host: string; port: number; privateKey: string },
  command: string,
  connectTimeoutS = 20,
): Promise<string> {
  const { stdout } = await run(systemTool('ssh'), [
    ...['-i', target.privateKey, '-p', String(target.port), '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeoutS}`],
    ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
    `root@${target.host}`,
    command,
  ]);
  return stdout;
}

/** The root password the real-node tests create their nodes with. */
export const REAL_NODE_ROOT_PASS = 'correct-Horse-battery-9';

/**
 * Creates a node through the API: a nanode in us-east from `image`, with the root password above and
 * `publicKey`; `extra` adds to the request. Its id (a refusal fails the test).
 */
export async function createRealNode(
  cloud: RealCloud,
  spec: { image: string; label: string; publicKey: string; extra?: Record<string, unknown>; token?: string },
): Promise<number> {
  const created = await cloud.api(
    'POST',
    '/v4/node/instances',
    {
      type: 'g6-nanode-1',
      region: 'us-east',
      image: spec.image,
      label: spec.label,
      root_pass: REAL_NODE_ROOT_PASS,
      authorized_keys: [spec.publicKey],
      ...spec.extra,
    },
    spec.token,
  );
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

/** The node's forwarded ports (user networking, GET /admin/nodes/ID/ports) and the SSH target of its port 22. */
export async function forwardedSsh(
  cloud: RealCloud,
  nodeId: number,
  privateKey: string,
): Promise<{ ports: ForwardedPort[]; target: { host: string; port: number; privateKey: string } }> {
  const res = await cloud.api('GET', `/admin/nodes/${nodeId}/ports`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const ports = res.body.ports as ForwardedPort[];
  const ssh22 = ports.find((p) => p.guest === 22);
  if (!ssh22) assert.fail(`no forward to port 22: ${JSON.stringify(ports)}`);
  return { ports, target: { host: ssh22.address, port: ssh22.host, privateKey } };
}
