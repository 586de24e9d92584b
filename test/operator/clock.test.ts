import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { runClockAdvance } from '../../src/cli/admin-control-commands.ts';
import { startRuntime } from '../../src/runtime.ts';
import { DIALECTS } from '../helpers/app.ts';
import { createNode, settle } from '../nodes/helpers.ts';
import { cumulo, type OperatorApp, ok, operatorApp } from './helpers.ts';

const DAY = 86_400;

async function pendingUpload(app: OperatorApp): Promise<string> {
  const res = await ok(app.request('POST', '/v4/images/upload', { body: { label: 'never-sent', region: 'eu-west' } }));
  return res.image.id;
}

/** How far the app's service clock is ahead of the wall clock, in whole seconds. */
function aheadSeconds(app: OperatorApp): number {
  return Math.round((app.runtime.ctx.clock.nowMs() - Date.now()) / 1000);
}

for (const dialect of DIALECTS) {
  describe(`service clock [${dialect}]`, () => {
    test('POST /admin/clock/advance moves the clock and runs what became due: upload expiry, scheduled backups', async (t) => {
      const app = await operatorApp(t, dialect);
      const image = await pendingUpload(app);
      const node = await createNode(app, { backups_enabled: true });
      await settle(app, 1000);
      const before = await ok(app.admin('GET', '/admin/clock'));
      assert.equal(before.offset_seconds, 0);
      assert.equal(before.logical, false);
      const ahead = aheadSeconds(app); // settle moved the test's base clock on a little

      const advanced = await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: DAY + 1 } }));
      assert.equal(advanced.offset_seconds, DAY + 1);
      assert.ok(advanced.jobs_run >= 2, `ran ${advanced.jobs_run} jobs`);
      assert.ok(Date.parse(`${advanced.now}Z`) - Date.parse(`${before.now}Z`) >= (DAY + 1) * 1000);
      assert.equal(aheadSeconds(app), ahead + DAY + 1);
      assert.equal((await app.request('GET', `/v4/images/${image}`)).status, 404, 'the upload expired');

      // The daily job waits for the node's backup window. A day's jump crosses one window, so it may
      // already have taken a backup (or land past the window): go into the next one either way.
      const taken = (await ok(app.request('GET', `/v4/node/instances/${node.id}/backups`))).automatic.length;
      assert.ok(taken <= 1, `at most one backup in a day, got ${taken}`);
      const job = await app.runtime.ctx.db
        .selectFrom('jobs')
        .select('run_at')
        .where('kind', '=', 'backup.schedule')
        .executeTakeFirstOrThrow();
      const intoWindow = Math.ceil((job.run_at - app.runtime.ctx.clock.nowMs()) / 1000) + 1;
      await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: intoWindow } }));
      await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: 60 } })); // the backup's own transition
      const backups = await ok(app.request('GET', `/v4/node/instances/${node.id}/backups`));
      assert.equal(backups.automatic.length, taken + 1, 'the daily backup was taken in its window');
      assert.ok(backups.automatic.every((b: { status: string }) => b.status === 'successful'));

      for (const body of [{}, { seconds: 0 }, { seconds: -5 }, { seconds: '1' }]) {
        const res = await app.admin('POST', '/admin/clock/advance', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
      }
    });

    test('the offset lives in the database: a restarted server and other processes keep the advanced time', async (t) => {
      const app = await operatorApp(t, dialect);
      await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: DAY } }));
      const { config } = app.runtime.ctx;
      const restarted = await startRuntime(config, {
        role: 'serve',
        logger: pino({ level: 'silent' }),
      });
      t.after(() => restarted.close());
      assert.equal(Math.round((restarted.ctx.clock.nowMs() - Date.now()) / 1000), DAY);

      const image = await pendingUpload(app);
      const res = await cumulo(app, ['admin', 'clock', 'advance', '--seconds', String(DAY + 1)]);
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout);
      assert.equal(out.offset_seconds, 2 * DAY + 1);
      assert.ok(out.jobs_run >= 1, 'the command ran the expiry itself');
      assert.equal((await app.request('GET', `/v4/images/${image}`)).status, 404);
      await sleep(1100); // the server's cache of the operator's settings runs out
      await app.request('GET', '/v4/regions');
      assert.equal(aheadSeconds(app), 2 * DAY + 1, 'the server follows within a second');

      const inProcess = JSON.parse(await runClockAdvance(app.runtime.ctx, { seconds: '60' }));
      assert.equal(inProcess.offset_seconds, 2 * DAY + 61);
      await assert.rejects(runClockAdvance(app.runtime.ctx, { seconds: '0' }), /more than 0/);
      await assert.rejects(runClockAdvance(app.runtime.ctx, {}), /seconds is required/);
    });
  });
}
