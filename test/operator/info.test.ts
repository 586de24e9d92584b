import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runAdminInfo } from '../../src/cli/admin-state-commands.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { VERSION } from '../../src/version.ts';
import { DIALECTS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { createNode, runningNode } from '../nodes/helpers.ts';
import { cumulo, ok, operatorApp } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`GET /admin/info [${dialect}]`, () => {
    test('version, database, uptime, counts per table, job queue depth, active faults and transitions; the CLI prints the same', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await runningNode(app);
      await ok(app.admin('PUT', '/admin/transitions/node_reboot', { body: { mode: 'manual' } }));
      await ok(app.request('POST', `/v4/node/instances/${node.id}/reboot`));
      await runDueJobs(app);
      const { ctx } = app.runtime;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'no.such.kind', maxAttempts: 1 });
      await runDueJobs(app); // gives up at once: failed
      await createNode(app); // queued: its provisioning has not started
      await ok(app.admin('PUT', '/admin/faults', { body: { latency_ms: 1, match: 'GET /nothing' } }));
      await ok(app.admin('PUT', '/admin/regions/eu-west', { body: { status: 'outage' } }));

      const info = await ok(app.admin('GET', '/admin/info'));
      assert.equal(info.version, VERSION);
      assert.equal(info.database.kind, dialect);
      assert.ok(!info.database.location.includes('@'), 'no credentials');
      assert.match(
        info.database.location,
        dialect === 'sqlite' ? /cumulo\.sqlite$/ : /^postgres:\/\/127\.0\.0\.1:5432\/t_\d+_[0-9a-f]+$/,
      );
      assert.ok(Number.isInteger(info.uptime_seconds) && info.uptime_seconds >= 0);
      assert.equal(info.seed, null);
      assert.equal(info.counts.nodes, 2);
      assert.equal(info.counts.accounts, 1);
      assert.ok(info.counts.events > 0 && info.counts.regions > 0 && 'operator_settings' in info.counts);
      assert.equal(info.jobs.held, 1);
      assert.equal(info.jobs.failed, 1);
      assert.ok(info.jobs.queued >= 1);
      assert.deepEqual(info.faults, {
        requests: { error_rate: 0, latency_ms: 1, match: 'GET /nothing', status: 503 },
        regions: [{ id: 'eu-west', status: 'outage' }],
      });
      assert.equal(info.transitions.length, 1);
      assert.equal(info.transitions[0].kind, 'node_reboot');
      assert.equal(info.transitions[0].mode, 'manual');
      assert.equal(info.transitions[0].held.length, 1);

      const printed = await cumulo(app, ['admin', 'info']);
      assert.equal(printed.code, 0, printed.stderr);
      const viaCli = JSON.parse(printed.stdout);
      assert.equal(viaCli.uptime_seconds, null, 'no server answered');
      assert.equal(viaCli.database.kind, dialect);
      const comparable = (i: typeof info) => ({ ...i, uptime_seconds: 0, clock: null, database: null });
      assert.deepEqual(comparable(viaCli), comparable(info));
      assert.deepEqual(JSON.parse(await runAdminInfo(ctx)).counts, info.counts);
    });
  });
}
