import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { COMPUTE_EVENT_JOB } from '../../src/compute/compute-event-job.ts';
import { QemuDriver } from '../../src/compute/qemu/driver.ts';
import { type ConfigOverrides, loadConfig } from '../../src/config.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { tempDir } from '../helpers/app.ts';

function start(dataDir: string, role: 'worker' | 'tool', overrides: ConfigOverrides = {}): Promise<Runtime> {
  const config = loadConfig({}, { dataDir, logLevel: 'silent', workerPollMs: 20, compute: 'qemu', ...overrides });
  return startRuntime(config, { role, logger: pino({ level: 'silent' }) });
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

  const worker = await start(dataDir, 'worker');
  t.after(() => worker.close());
  assert.match(worker.computeSummary ?? '', /^QEMU under (KVM|TCG) \(.+\), user networking$/);
  assert.deepEqual(fs.readdirSync(folder), ['console.log'], 'what the process left is cleaned up, the console log kept');
  let jobs: { kind: string; payload: string }[] = [];
  for (let tries = 0; jobs.length === 0 && tries < 100; tries += 1) {
    jobs = await worker.ctx.db.selectFrom('jobs').select(['kind', 'payload']).where('kind', '=', COMPUTE_EVENT_JOB).execute();
    if (jobs.length === 0) await sleep(20);
  }
  assert.deepEqual(
    jobs.map((job) => JSON.parse(job.payload)),
    [{ key: 'node-5', event: 'powered_off' }],
  );
});

test('simulated nodes have no compute driver; bridge networking is refused until it is built', async (t) => {
  const simulated = await start(tempDir(t), 'tool', { compute: 'simulated' });
  await simulated.close();
  assert.equal(simulated.ctx.compute, null);
  assert.equal(simulated.computeSummary, null);
  await assert.rejects(start(tempDir(t), 'tool', { nodeNetwork: 'bridge' }), /bridge networking is not built yet/);
});
