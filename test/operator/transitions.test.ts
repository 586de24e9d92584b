import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runJobAdvance, runTransitionAdvance, runTransitionSet } from '../../src/cli/admin-control-commands.ts';
import { TRANSITION_KINDS, TRANSITION_SECONDS } from '../../src/jobs/transitions.ts';
import { admin } from '../helpers/accounts.ts';
import { DIALECTS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { eventsOf, getNode, manualClock, runningNode, settle } from '../nodes/helpers.ts';
import { cumulo, type OperatorApp, ok, operatorApp } from './helpers.ts';

async function bootEvent(app: OperatorApp, action = 'node_boot') {
  const me = await admin(app);
  const events = await eventsOf(app, me.accountId, action);
  const last = events.at(-1);
  assert.ok(last, `a ${action} event`);
  return { status: last.status, percent: last.percent_complete };
}

async function stoppedNode(app: OperatorApp) {
  const node = await runningNode(app);
  await ok(app.request('POST', `/v4/node/instances/${node.id}/shutdown`));
  await settle(app);
  assert.equal((await getNode(app, node.id)).status, 'offline');
  return node;
}

async function transition(app: OperatorApp, kind: string) {
  const list = await ok(app.admin('GET', '/admin/transitions'));
  return list.data.find((x: { kind: string }) => x.kind === kind);
}

for (const dialect of DIALECTS) {
  describe(`transition control [${dialect}]`, () => {
    test('GET /admin/transitions lists every kind with its default, CUMULO_TIME_SCALE applied to defaults only', async (t) => {
      const app = await operatorApp(t, dialect, { timeScale: 0.5 });
      const list = await ok(app.admin('GET', '/admin/transitions'));
      assert.deepEqual(
        list.data.map((x: { kind: string }) => x.kind),
        TRANSITION_KINDS,
      );
      for (const kind of [
        'node_provision',
        'node_boot',
        'node_shutdown',
        'node_reboot',
        'backup',
        'node_clone',
        'node_resize',
        'node_migrate',
        'image_create',
        'upload_processing',
      ]) {
        assert.ok((TRANSITION_KINDS as string[]).includes(kind), kind);
      }
      const boot = list.data.find((x: { kind: string }) => x.kind === 'node_boot');
      assert.deepEqual(boot, {
        kind: 'node_boot',
        default_seconds: TRANSITION_SECONDS.node_boot,
        mode: 'default',
        seconds: TRANSITION_SECONDS.node_boot * 0.5,
        held: [],
      });
      const set = await ok(app.admin('PUT', '/admin/transitions/node_boot', { body: { seconds: 30 } }));
      assert.deepEqual(set.data, [{ ...boot, mode: 'seconds', seconds: 30 }]);
    });

    test('{"seconds": n}: the event goes scheduled -> started 0 -> 50 halfway -> finished 100 after n seconds of service time', async (t) => {
      const clock = manualClock();
      const app = await operatorApp(t, dialect, {}, clock);
      const node = await stoppedNode(app);
      await ok(app.admin('PUT', '/admin/transitions/node_boot', { body: { seconds: 30 } }));
      await ok(app.request('POST', `/v4/node/instances/${node.id}/boot`));
      assert.deepEqual(await bootEvent(app), { status: 'scheduled', percent: 0 });
      await runDueJobs(app);
      assert.deepEqual(await bootEvent(app), { status: 'started', percent: 0 });
      clock.advance(14_000);
      await runDueJobs(app);
      assert.deepEqual(await bootEvent(app), { status: 'started', percent: 0 });
      clock.advance(1_000);
      await runDueJobs(app);
      assert.deepEqual(await bootEvent(app), { status: 'started', percent: 50 });
      assert.equal((await getNode(app, node.id)).status, 'booting');
      clock.advance(14_999);
      await runDueJobs(app);
      assert.equal((await getNode(app, node.id)).status, 'booting');
      clock.advance(1);
      await runDueJobs(app);
      assert.deepEqual(await bootEvent(app), { status: 'finished', percent: 100 });
      assert.equal((await getNode(app, node.id)).status, 'running');
    });

    test('{"mode": "manual"}: the finish waits, held, until POST /admin/transitions/{kind}/advance', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await stoppedNode(app);
      await ok(app.admin('PUT', '/admin/transitions/node_boot', { body: { mode: 'manual' } }));
      await ok(app.request('POST', `/v4/node/instances/${node.id}/boot`));
      const advanced = await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: 86400 } }));
      assert.ok(advanced.jobs_run >= 1);
      assert.equal((await getNode(app, node.id)).status, 'booting', 'a day later it still boots');
      assert.deepEqual(await bootEvent(app), { status: 'started', percent: 0 });
      const { held } = await transition(app, 'node_boot');
      assert.equal(held.length, 1);
      const info = await ok(app.admin('GET', '/admin/info'));
      assert.equal(info.jobs.held, 1);
      assert.deepEqual(info.transitions, [{ ...(await transition(app, 'node_boot')) }]);

      const released = await ok(app.admin('POST', '/admin/transitions/node_boot/advance'));
      assert.deepEqual(released.released, held);
      assert.ok(released.jobs_run >= 1);
      assert.equal((await getNode(app, node.id)).status, 'running');
      assert.deepEqual(await bootEvent(app), { status: 'finished', percent: 100 });
      assert.deepEqual((await transition(app, 'node_boot')).held, []);
      assert.deepEqual(await ok(app.admin('POST', '/admin/transitions/node_boot/advance')), { released: [], jobs_run: 0 });
    });

    test('POST /admin/jobs/{id}/advance finishes one held job; leaving manual releases the others', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await runningNode(app);
      const b = await runningNode(app);
      await ok(app.admin('PUT', '/admin/transitions/node_shutdown', { body: { mode: 'manual' } }));
      for (const n of [a, b]) await ok(app.request('POST', `/v4/node/instances/${n.id}/shutdown`));
      await runDueJobs(app);
      const { held } = await transition(app, 'node_shutdown');
      assert.equal(held.length, 2);
      assert.deepEqual((await ok(app.admin('POST', `/admin/jobs/${held[0]}/advance`))).released, [held[0]]);
      const statuses = [(await getNode(app, a.id)).status, (await getNode(app, b.id)).status].sort();
      assert.deepEqual(statuses, ['offline', 'shutting_down']);
      const missing = await app.admin('POST', '/admin/jobs/999999/advance');
      assert.equal(missing.status, 404);
      assert.match(missing.body.errors[0].reason, /No job with id 999999/);

      const back = await ok(app.admin('PUT', '/admin/transitions/node_shutdown', { body: { mode: 'default' } }));
      assert.equal(back.data[0].mode, 'default');
      assert.deepEqual(back.data[0].held, []);
      assert.equal((await getNode(app, a.id)).status, 'offline');
      assert.equal((await getNode(app, b.id)).status, 'offline');
    });

    test('PUT /admin/transitions sets every kind; bad kinds and bodies are refused', async (t) => {
      const app = await operatorApp(t, dialect);
      const all = await ok(app.admin('PUT', '/admin/transitions', { body: { seconds: 0 } }));
      assert.equal(all.data.length, TRANSITION_KINDS.length);
      assert.ok(all.data.every((x: { mode: string; seconds: number }) => x.mode === 'seconds' && x.seconds === 0));
      const node = await (await import('../nodes/helpers.ts')).createNode(app);
      await runDueJobs(app);
      assert.equal((await getNode(app, node.id)).status, 'running', 'zero seconds: done at once');

      const unknown = await app.admin('PUT', '/admin/transitions/node_teleport', { body: { seconds: 1 } });
      assert.equal(unknown.status, 404);
      assert.match(unknown.body.errors[0].reason, /No transition kind node_teleport/);
      for (const body of [
        {},
        { seconds: -1 },
        { seconds: 'ten' },
        { mode: 'manual', seconds: 3 },
        { mode: 'later' },
        { seconds: -1, extra: true },
      ]) {
        const res = await app.admin('PUT', '/admin/transitions/node_boot', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(res.body.errors[0].reason);
      }
    });

    test('cumulo admin transitions set/advance and jobs advance, in-process and as processes; a server sees a change within a second', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await stoppedNode(app);
      const set = await cumulo(app, ['admin', 'transitions', 'set', 'node_boot', '--manual']);
      assert.equal(set.code, 0, set.stderr);
      assert.equal(JSON.parse(set.stdout).data[0].mode, 'manual');
      await sleep(1100); // the app's cache of the operator's settings runs out
      await ok(app.request('POST', `/v4/node/instances/${node.id}/boot`));
      await runDueJobs(app);
      const advanced = await cumulo(app, ['admin', 'transitions', 'advance', 'node_boot']);
      assert.equal(advanced.code, 0, advanced.stderr);
      assert.equal(JSON.parse(advanced.stdout).released.length, 1);
      assert.equal((await getNode(app, node.id)).status, 'running', 'the command ran the released job');

      const { ctx } = app.runtime;
      assert.equal(JSON.parse(await runTransitionSet(ctx, { kind: 'node_reboot', manual: true })).data[0].mode, 'manual');
      await ok(app.request('POST', `/v4/node/instances/${node.id}/reboot`));
      await runDueJobs(app);
      const [held] = (await transition(app, 'node_reboot')).held;
      const one = await cumulo(app, ['admin', 'jobs', 'advance', String(held)]);
      assert.equal(one.code, 0, one.stderr);
      assert.deepEqual(JSON.parse(one.stdout).released, [held]);
      assert.equal((await getNode(app, node.id)).status, 'running');
      assert.equal(JSON.parse(await runTransitionAdvance(ctx, { kind: 'node_reboot' })).released.length, 0);
      await assert.rejects(runJobAdvance(ctx, { job: 'x' }), /job id/);
      const bad = await cumulo(app, ['admin', 'transitions', 'set', 'node_boot']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /Send "seconds"/);
      const secs = await cumulo(app, ['admin', 'transitions', 'set', 'all', '--seconds', '2']);
      assert.equal(secs.code, 0, secs.stderr);
      assert.equal(JSON.parse(secs.stdout).data.length, TRANSITION_KINDS.length);
    });
  });
}
