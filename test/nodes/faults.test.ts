import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { runNodeMaintenance, runNodePowerOff } from '../../src/cli/fault-commands.ts';
import { enterMaintenance, powerOffUnexpectedly } from '../../src/domain/nodes/lifecycle/node-faults.service.ts';
import { watchdogDecision } from '../../src/domain/nodes/lifecycle/node-watchdog.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';
import { eventsOf, getNode, manualClock, runningNode, settle } from './helpers.ts';

const MINUTE = 60_000;

test('the watchdog decision: boots until more than five fall within fifteen minutes', () => {
  let boots: number[] = [];
  const issued: boolean[] = [];
  for (let i = 0; i < 8; i += 1) {
    const decision = watchdogDecision(boots, i * MINUTE);
    issued.push(decision.boot);
    boots = decision.boots;
  }
  assert.deepEqual(issued, [true, true, true, true, true, true, false, false]);
  // Fifteen minutes after the first boot it falls out of the window, and one more boot is allowed.
  assert.equal(watchdogDecision(boots, 15 * MINUTE).boot, true);
  assert.equal(watchdogDecision(boots, 15 * MINUTE - 1).boot, false);
});

for (const dialect of DIALECTS) {
  describe(`platform faults [${dialect}]`, () => {
    test('an unexpected power-off makes the watchdog boot the node, until it gives up; a later power-off is booted again', async (t) => {
      const clock = manualClock();
      const app = await buildTestApp(t, { dialect, clock });
      const me = await admin(app);
      const { ctx } = app.runtime;
      const node = await runningNode(app);
      const outcomes: boolean[] = [];
      for (let i = 0; i < 7; i += 1) {
        const outcome = await powerOffUnexpectedly(ctx, node.id);
        outcomes.push(outcome.watchdogBoot);
        if (outcome.watchdogBoot) assert.equal((await getNode(app, node.id)).status, 'booting');
        await settle(app, 1000); // seconds of service time per round
      }
      assert.deepEqual(outcomes, [true, true, true, true, true, true, false]);
      assert.equal((await getNode(app, node.id)).status, 'offline', 'the watchdog gave up');
      const boots = await eventsOf(app, me.accountId, 'lassie_reboot');
      assert.equal(boots.length, 6);
      // The watchdog's doing, no user's: the service's own name, and the config it booted.
      assert.ok(boots.every((e) => e.status === 'finished' && e.username === 'system' && e.entity_id === node.id));
      assert.ok(boots.every((e) => JSON.parse(e.secondary_entity ?? 'null')?.type === 'node_config'));

      await app.request('POST', `/v4/node/instances/${node.id}/boot`);
      await settle(app);
      clock.advance(16 * MINUTE);
      assert.deepEqual(await powerOffUnexpectedly(ctx, node.id), { watchdogBoot: true });
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
    });

    test('without watchdog_enabled the node stays offline; only a running, settled node can power off', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const node = await runningNode(app);
      await app.request('PUT', `/v4/node/instances/${node.id}`, { body: { watchdog_enabled: false } });
      assert.deepEqual(await powerOffUnexpectedly(ctx, node.id), { watchdogBoot: false });
      assert.equal((await getNode(app, node.id)).status, 'offline');
      await assert.rejects(powerOffUnexpectedly(ctx, node.id), /only a running node/);
      await assert.rejects(powerOffUnexpectedly(ctx, 999999), /No node/);
    });

    test('maintenance stops a node whatever it does; an operation under way then leaves it stopped; boot brings it back', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const node = await runningNode(app);
      await enterMaintenance(ctx, node.id);
      assert.equal((await getNode(app, node.id)).status, 'stopped');
      assert.equal((await app.request('POST', `/v4/node/instances/${node.id}/boot`)).status, 200);
      await enterMaintenance(ctx, node.id);
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'stopped', 'the boot under way did not override maintenance');
      assert.equal((await app.request('POST', `/v4/node/instances/${node.id}/boot`)).status, 200);
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
    });

    test('the CLI commands call the same functions', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const node = await runningNode(app);
      assert.equal(await runNodePowerOff(ctx, { node: String(node.id) }), 'status=offline\nwatchdog_boot=true\n');
      assert.equal(await runNodeMaintenance(ctx, { node: String(node.id) }), 'status=stopped\n');
      await assert.rejects(runNodeMaintenance(ctx, { node: 'abc' }), /node id/);
    });
  });
}

describe('cumulo fault ... [sqlite, as processes]', () => {
  test('node-power-off and node-maintenance act on the database the server uses', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const node = await runningNode(app);
    const run = (...args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...process.env, CUMULO_DATA_DIR: app.dataDir, LOG_LEVEL: 'warn' };
      delete env.DATABASE_URL;
      return promisify(execFile)(process.execPath, [CUMULO_BIN, 'fault', ...args], { env });
    };
    const off = await run('node-power-off', '--node', String(node.id));
    assert.equal(off.stdout, 'status=offline\nwatchdog_boot=true\n');
    assert.equal((await getNode(app, node.id)).status, 'booting');
    await settle(app);
    assert.equal((await getNode(app, node.id)).status, 'running');
    const stopped = await run('node-maintenance', '--node', String(node.id));
    assert.equal(stopped.stdout, 'status=stopped\n');
    assert.equal((await getNode(app, node.id)).status, 'stopped');
    await assert.rejects(run('node-maintenance', '--node', '424242'), (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /No node with id 424242/);
      return true;
    });
  });
});
