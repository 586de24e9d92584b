import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { livePid } from '../../src/compute/qemu/qemu-process.ts';
import { COMPUTE_DIR } from '../../src/data-dir.ts';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { machineKey } from '../../src/domain/nodes/compute/compute-keys.ts';
import { DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import {
  createRealNode,
  forwardedSsh,
  killMachinesUnder,
  REAL_NODE_TOOLS,
  type RealCloud,
  sshKeyPair,
  sshRun,
  startRealCloud,
  storeBusybox,
} from '../helpers/real-nodes.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';

const run = promisify(execFile);
/** Short, so that a killed agent is noticed within seconds. */
const OFFLINE_MS = 3000;
const AGENT_SETTINGS = { CUMULO_AGENT_OFFLINE_MS: String(OFFLINE_MS), CUMULO_AGENT_HEARTBEAT_MS: '500' };

interface Agent {
  name: string;
  dataDir: string;
  env: Record<string, string>;
  child: ChildProcess;
  output(): string;
}

function spawnAgent(name: string, dataDir: string, env: Record<string, string>): Agent {
  const child = spawn(process.execPath, [CUMULO_BIN, 'agent', '--host', name], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  return { name, dataDir, env, child, output: () => out };
}

/** An agent on a data dir of its own (the busybox image built there), sharing the cloud's database. */
async function startAgent(
  t: TestContext,
  cloud: RealCloud,
  name: string,
  memoryMb: number,
  extra: Record<string, string> = {},
): Promise<Agent> {
  const dataDir = tempDir(t);
  const env = {
    ...cloud.env,
    ...AGENT_SETTINGS,
    ...extra,
    CUMULO_DATA_DIR: dataDir,
    CUMULO_COMPUTE: 'qemu',
    CUMULO_COMPUTE_MEMORY: String(memoryMb),
  };
  await run(process.execPath, [CUMULO_BIN, 'images', 'build', 'busybox'], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
  return spawnAgent(name, dataDir, env);
}

async function until<T>(what: string, timeoutMs: number, look: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the admin answer is asserted field by field
async function hostsOf(cloud: RealCloud): Promise<Map<string, any>> {
  const res = await cloud.api('GET', '/admin/hosts');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return new Map(res.body.data.map((h: { name: string }) => [h.name, h]));
}

/** Whether the node's QEMU runs from the agent's data dir. */
function runsUnder(agent: Agent, nodeId: number): boolean {
  return livePid(machineFiles(path.join(agent.dataDir, COMPUTE_DIR), machineKey(nodeId)).pid) !== null;
}

const postgres = DIALECTS.includes('postgres');

test(
  'two compute agents on one PostgreSQL database: placement by free memory, each node on its own agent, SSH, a killed agent shows its node offline and brings it back running on its return',
  postgres ? needs(...REAL_NODE_TOOLS) : { skip: 'agents share one PostgreSQL database; SQLite is one host' },
  async (t) => {
    const agents: Agent[] = [];
    const running: { cloud?: RealCloud } = {};
    // First of the hooks (they run in the order added): the processes that write to the schema end before it is dropped.
    t.after(() => {
      for (const agent of agents) agent.child.kill('SIGKILL');
      running.cloud?.server().child.kill('SIGKILL');
    });
    const pgSchema = await freshPgSchema(t);
    const cloud = await startRealCloud(t, {
      ...AGENT_SETTINGS,
      CUMULO_COMPUTE: 'agents',
      CUMULO_NODE_NETWORK: 'user',
      DATABASE_URL: urlWithSchema(PG_URL, pgSchema),
    });
    running.cloud = cloud;
    await storeBusybox(cloud);
    // Added before the agents' data dirs are made: hooks run in the order added, and tempDir's removes the pid files.
    t.after(async () => {
      for (const agent of agents) await killMachinesUnder(agent.dataDir);
    });
    // `a` has room for one nanode (1024 MB) and more memory left than `b` at first: the first node goes
    // there, the second must go to `b`.
    // `b` serves us-east alone: a node on it cannot migrate to another region (disks stay on their host).
    agents.push(
      await startAgent(t, cloud, 'a', 1536),
      await startAgent(t, cloud, 'b', 1024, { CUMULO_AGENT_REGIONS: 'us-east' }),
    );
    const [a, b] = agents as [Agent, Agent];
    await until('both agents report', 15_000, async () => {
      const hosts = await hostsOf(cloud);
      return hosts.get('a')?.live && hosts.get('b')?.live ? hosts : undefined;
    });

    const key = await sshKeyPair(t);
    const first = await createRealNode(cloud, { image: 'node/busybox', label: 'on-a', publicKey: key.publicKey });
    const second = await createRealNode(cloud, { image: 'node/busybox', label: 'on-b', publicKey: key.publicKey });
    // A third finds no host with room.
    const third = await cloud.api('POST', '/v4/node/instances', {
      type: 'g6-nanode-1',
      region: 'us-east',
      image: 'node/busybox',
      root_pass: 'correct-Horse-battery-9',
    });
    assert.equal(third.status, 400, JSON.stringify(third.body));
    assert.equal(third.body.errors[0].field, 'type');
    assert.match(third.body.errors[0].reason, /No compute host in region us-east has room/);

    const started = Date.now();
    await Promise.all([cloud.waitForStatus(first, 'running', 60_000), cloud.waitForStatus(second, 'running', 60_000)]);
    t.diagnostic(`two nodes on two agents running in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.ok(runsUnder(a, first) && !runsUnder(b, first), `node ${first} runs from a's data dir:\n${a.output().slice(-2000)}`);
    assert.ok(
      runsUnder(b, second) && !runsUnder(a, second),
      `node ${second} runs from b's data dir:\n${b.output().slice(-2000)}`,
    );
    assert.ok(
      !fs.existsSync(path.join(cloud.dataDir, COMPUTE_DIR, 'machines', `node-${first}`)),
      'the API server runs no machine',
    );
    const migrate = await cloud.api('POST', `/v4/node/instances/${second}/migrate`, { region: 'us-central' });
    assert.equal(migrate.status, 400, JSON.stringify(migrate.body));
    assert.equal(migrate.body.errors[0].field, 'region');
    assert.match(migrate.body.errors[0].reason, /host b does not serve region us-central/);
    const hosts = await until('the agents report their machines', 5000, async () => {
      const now = await hostsOf(cloud);
      return now.get('a')?.machines === 1 && now.get('b')?.machines === 1 ? now : undefined;
    });
    assert.equal(hosts.get('a').memory_total_mb, 1536);
    assert.ok(hosts.get('a').memory_free_mb <= 512, JSON.stringify(hosts.get('a')));

    // SSH to the node on `a`, through the ports `a` reports.
    const { target } = await until('node ports reported', 5000, async () => {
      const res = await cloud.api('GET', `/admin/nodes/${first}/ports`);
      return res.body.ports?.length ? forwardedSsh(cloud, first, key.privateKey) : undefined;
    });
    assert.equal(await sshRun(target, 'hostname'), 'on-a\n');
    assert.equal((await cloud.cli('admin', 'nodes', 'ports', String(first))).trim(), `22\t${target.host}:${target.port}`);
    const bootId = await sshRun(target, 'cat /proc/sys/kernel/random/boot_id');

    // `a` dies: its node shows offline within the threshold (the machine runs on); `b`'s stays running.
    a.child.kill('SIGKILL');
    const killed = Date.now();
    await cloud.waitForStatus(first, 'offline', OFFLINE_MS + 5000);
    t.diagnostic(`agent killed to node offline: ${((Date.now() - killed) / 1000).toFixed(1)} s`);
    assert.equal((await cloud.api('GET', `/v4/node/instances/${second}`)).body.status, 'running');
    assert.equal((await hostsOf(cloud)).get('a').live, false);
    assert.ok(runsUnder(a, first), 'the machine outlives its agent');
    const disks = await cloud.api('GET', `/v4/node/instances/${first}/disks`);
    assert.equal(disks.body.data.length > 0, true, 'the offline node keeps its disks');
    const boot = await cloud.api('POST', `/v4/node/instances/${first}/boot`, {});
    assert.equal(boot.status, 400, JSON.stringify(boot.body));
    assert.match(boot.body.errors[0].reason, /compute host a is not reporting/);

    // `a` returns on the same data dir: it adopts the machine and the node is running again, the same guest.
    agents[0] = spawnAgent('a', a.dataDir, a.env);
    await cloud.waitForStatus(first, 'running', 15_000);
    assert.equal(await sshRun(target, 'cat /proc/sys/kernel/random/boot_id'), bootId, 'the same guest, not booted again');
    assert.equal((await hostsOf(cloud)).get('a').live, true);
  },
);

test('an agent refuses to start without PostgreSQL or without QEMU, saying why', async (t) => {
  const dataDir = tempDir(t);
  const attempt = (env: Record<string, string>) =>
    run(process.execPath, [CUMULO_BIN, 'agent', '--host', 'h1'], {
      env: { ...process.env, CUMULO_DATA_DIR: dataDir, ...env },
    }).then(
      () => assert.fail('the agent started'),
      (err: { code: number; stderr: string }) => err,
    );
  const sqlite = await attempt({ CUMULO_COMPUTE: 'qemu', DATABASE_URL: '' });
  assert.equal(sqlite.code, 2);
  assert.match(sqlite.stderr, /share one database: set DATABASE_URL to a PostgreSQL database/);
  const simulated = await attempt({ CUMULO_COMPUTE: 'simulated', DATABASE_URL: PG_URL });
  assert.match(simulated.stderr, /set CUMULO_COMPUTE=qemu/);
  assert.deepEqual(fs.readdirSync(dataDir), [], 'nothing was written');
});
