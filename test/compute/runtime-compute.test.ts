import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { COMPUTE_EVENT_JOB } from '../../src/compute/compute-event-job.ts';
import { BridgeNetwork } from '../../src/compute/qemu/bridge-network.ts';
import { QemuDriver } from '../../src/compute/qemu/driver.ts';
import { networkBackendFor } from '../../src/compute/qemu/network-for-config.ts';
import { UserNetwork } from '../../src/compute/qemu/user-network.ts';
import { ConfigError, type ConfigOverrides, loadConfig } from '../../src/config.ts';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { tempDir } from '../helpers/app.ts';

function start(
  dataDir: string,
  role: 'worker' | 'tool',
  overrides: ConfigOverrides = {},
  jobHandlers: JobHandler[] = [],
): Promise<Runtime> {
  const config = loadConfig({}, { dataDir, logLevel: 'silent', workerPollMs: 20, compute: 'qemu', ...overrides });
  return startRuntime(config, { role, logger: pino({ level: 'silent' }), jobHandlers });
}

/** A machine folder as a process killed with its machine leaves it: a pid file of no live QEMU, its network. */
function leftBehind(dataDir: string, key: string): string {
  const folder = path.join(dataDir, 'compute', 'machines', key);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'qemu.pid'), '999999\n');
  fs.writeFileSync(path.join(folder, 'network.json'), JSON.stringify({ qemuArgs: [], launchPrefix: [], ports: [] }));
  fs.writeFileSync(path.join(folder, 'console.log'), 'cumulo: booted\n');
  return folder;
}

test('CUMULO_COMPUTE=qemu: the worker process adopts what was left, and a machine gone is a queued compute.event job', async (t) => {
  const dataDir = tempDir(t);
  const folder = leftBehind(dataDir, 'node-5');

  const tool = await start(dataDir, 'tool');
  await tool.close();
  assert.ok(tool.ctx.compute instanceof QemuDriver);
  assert.ok(fs.existsSync(path.join(folder, 'qemu.pid')), 'a command does not adopt machines');

  // The worker runs (and removes) the job at once: what it ran is recorded in place of the nodes group's handler.
  const ran: unknown[] = [];
  const recorder: JobHandler = { kind: COMPUTE_EVENT_JOB, run: async ({ payload }) => void ran.push(payload) };
  const worker = await start(dataDir, 'worker', {}, [recorder]);
  t.after(() => worker.close());
  assert.match(worker.computeSummary ?? '', /^QEMU under (KVM|TCG) \(.+\), user networking$/);
  assert.deepEqual(fs.readdirSync(folder), ['console.log'], 'what the process left is cleaned up, the console log kept');
  for (let tries = 0; ran.length === 0 && tries < 100; tries += 1) await sleep(20);
  assert.deepEqual(ran, [{ key: 'node-5', event: 'powered_off' }]);
});

test('simulated nodes have no compute driver', async (t) => {
  const simulated = await start(tempDir(t), 'tool', { compute: 'simulated' });
  await simulated.close();
  assert.equal(simulated.ctx.compute, null);
  assert.equal(simulated.computeSummary, null);
});

test('CUMULO_NODE_NETWORK=bridge: a BridgeNetwork in the namespace CUMULO_NODE_NETNS names (unless set, one of the data dir own), for root alone', async (t) => {
  const log = pino({ level: 'silent' });
  const first = loadConfig({ CUMULO_DATA_DIR: '/srv/cumulo-a' }).nodeNetns;
  assert.match(first, /^cumulo-[0-9a-f]{8}$/);
  assert.equal(loadConfig({ CUMULO_DATA_DIR: '/srv/cumulo-a/' }).nodeNetns, first, 'the same data dir, the same namespace');
  assert.notEqual(loadConfig({ CUMULO_DATA_DIR: '/srv/cumulo-b' }).nodeNetns, first, 'two installations, two namespaces');
  const config = loadConfig({ CUMULO_NODE_NETWORK: 'bridge', CUMULO_NODE_NETNS: 'cumulo-b' });
  const bridge = networkBackendFor(config, log, 0);
  assert.ok(bridge instanceof BridgeNetwork);
  assert.equal(bridge.netns, 'cumulo-b');
  assert.ok(networkBackendFor(loadConfig({ CUMULO_NODE_NETNS: 'cumulo-b' }), log, 1000) instanceof UserNetwork);
  assert.throws(
    () => networkBackendFor(config, log, 1000),
    (error: Error) =>
      error instanceof ConfigError &&
      /^CUMULO_NODE_NETWORK=bridge needs root .*this process runs as uid 1000: run it as root, or set CUMULO_NODE_NETWORK=user$/.test(
        error.message,
      ),
  );
  assert.throws(() => loadConfig({ CUMULO_NODE_NETNS: 'a b' }), /CUMULO_NODE_NETNS must match pattern/);

  // What nodes may reach of the host, and NAT: nothing and off unless set.
  assert.deepEqual([config.nodeHostPorts, config.nodeNat], [[], 'off']);
  const open = loadConfig({ CUMULO_NODE_HOST_PORTS: '53/UDP, 8080', CUMULO_NODE_NAT: 'on' });
  assert.deepEqual([open.nodeHostPorts, open.nodeNat], [['53/udp', '8080/tcp'], 'on']);
  assert.throws(() => loadConfig({ CUMULO_NODE_HOST_PORTS: '70000/tcp' }), /CUMULO_NODE_HOST_PORTS/);
  assert.throws(() => loadConfig({ CUMULO_NODE_HOST_PORTS: '53/sctp' }), /CUMULO_NODE_HOST_PORTS/);
  assert.throws(() => loadConfig({ CUMULO_NODE_NAT: 'yes' }), /CUMULO_NODE_NAT/);

  const bridged = start(tempDir(t), 'tool', { nodeNetwork: 'bridge', nodeNetns: 'cumulo-b' });
  if (process.getuid?.() !== 0) {
    await assert.rejects(bridged, /needs root/);
    return;
  }
  const runtime = await bridged;
  await runtime.close();
  assert.equal(runtime.computeSummary, 'QEMU, bridge networking in namespace cumulo-b');
});
