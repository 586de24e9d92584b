import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { createNode, eventsOf, getNode, manualClock, runningNode, settle } from './helpers.ts';

function post(app: TestApp, nodeId: number, action: string, body?: unknown) {
  return app.request('POST', `/v4/node/instances/${nodeId}/${action}`, body === undefined ? {} : { body });
}

async function addConfig(app: TestApp, nodeId: number, label: string): Promise<number> {
  const disks = (await app.request('GET', `/v4/node/instances/${nodeId}/disks`)).body.data;
  const res = await app.request('POST', `/v4/node/instances/${nodeId}/configs`, {
    body: { label, devices: { sda: { disk_id: disks[0].id } } },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

async function lastBooted(app: TestApp, nodeId: number): Promise<number | null> {
  const row = await app.runtime.ctx.db
    .selectFrom('nodes')
    .select('last_booted_config_id')
    .where('id', '=', nodeId)
    .executeTakeFirstOrThrow();
  return row.last_booted_config_id;
}

for (const dialect of DIALECTS) {
  describe(`node lifecycle [${dialect}]`, () => {
    test('shutdown and boot pass through shutting_down and booting, with events scheduled -> started -> finished', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app);

      const down = await post(app, node.id, 'shutdown');
      assert.equal(down.status, 200);
      assert.deepEqual(down.body, {});
      assert.equal((await getNode(app, node.id)).status, 'shutting_down');
      const [scheduled] = await eventsOf(app, me.accountId, 'node_shutdown');
      assert.equal(scheduled?.status, 'scheduled');
      app.runtime.ctx.clock.advance(1);
      await runDueJobs(app);
      const [started] = await eventsOf(app, me.accountId, 'node_shutdown');
      assert.equal(started?.status, 'started');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'offline');
      assert.equal((await eventsOf(app, me.accountId, 'node_shutdown'))[0]?.status, 'finished');
      assert.equal((await post(app, node.id, 'shutdown')).status, 200, 'shutting down an offline node changes nothing');
      assert.equal((await eventsOf(app, me.accountId, 'node_shutdown')).length, 1);

      assert.equal((await post(app, node.id, 'boot')).status, 200);
      assert.equal((await getNode(app, node.id)).status, 'booting');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
      assert.equal((await eventsOf(app, me.accountId, 'node_boot'))[0]?.status, 'finished');

      assert.equal((await post(app, node.id, 'reboot', {})).status, 200);
      assert.equal((await getNode(app, node.id)).status, 'rebooting');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
      assert.equal((await eventsOf(app, me.accountId, 'node_reboot'))[0]?.status, 'finished');
    });

    test('boot, reboot and shutdown answer 400 while the node is busy, and in the wrong state', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app);
      for (const action of ['boot', 'reboot', 'shutdown']) {
        const res = await post(app, node.id, action);
        assert.equal(res.status, 400, `${action} while provisioning`);
        // Exactly the live service's words, which SDKs compare whole to retry.
        assert.deepEqual(res.body, { errors: [{ reason: 'Node busy.' }] });
      }
      await settle(app);
      assert.equal((await post(app, node.id, 'boot')).status, 400, 'boot a running node');
      await post(app, node.id, 'shutdown');
      await settle(app);
      assert.equal((await post(app, node.id, 'reboot')).status, 400, 'reboot an offline node');
    });

    test('of concurrent boots only one gets the node', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await runningNode(app, { booted: false });
      assert.equal(node.status, 'offline');
      const results = await Promise.all(Array.from({ length: 6 }, () => post(app, node.id, 'boot')));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400]);
      for (const lost of results.filter((r) => r.status === 400)) assert.equal(lost.body.errors[0].reason, 'Node busy.');
      const jobs = await app.runtime.ctx.db.selectFrom('jobs').select('kind').where('kind', '=', 'node.boot').execute();
      assert.equal(jobs.length, 1);
    });

    test('boot without config_id: the only config, else the last booted one, else 400', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await runningNode(app, { booted: false });
      const [first] = (await app.request('GET', `/v4/node/instances/${node.id}/configs`)).body.data;
      assert.equal(await lastBooted(app, node.id), null, 'created with booted: false');

      const second = await addConfig(app, node.id, 'second');
      const ambiguous = await post(app, node.id, 'boot');
      assert.equal(ambiguous.status, 400, 'several configs, none booted last');
      assert.equal(ambiguous.body.errors[0].field, 'config_id');

      const foreign = await post(app, node.id, 'boot', { config_id: 999999 });
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.errors[0].field, 'config_id');

      assert.equal((await post(app, node.id, 'boot', { config_id: second })).status, 200);
      await settle(app);
      assert.equal(await lastBooted(app, node.id), second);
      await post(app, node.id, 'shutdown');
      await settle(app);
      assert.equal((await post(app, node.id, 'boot')).status, 200, 'the last booted config is used');
      await settle(app);
      assert.equal(await lastBooted(app, node.id), second);

      await post(app, node.id, 'reboot', { config_id: first.id });
      await settle(app);
      assert.equal(await lastBooted(app, node.id), first.id, 'a reboot into another config makes it the last booted');

      await post(app, node.id, 'shutdown');
      await settle(app);
      await app.request('DELETE', `/v4/node/instances/${node.id}/configs/${first.id}`);
      assert.equal((await post(app, node.id, 'boot')).status, 200, 'one config left: it is used');
      await settle(app);
      assert.equal(await lastBooted(app, node.id), second);

      await post(app, node.id, 'shutdown');
      await settle(app);
      const third = await addConfig(app, node.id, 'third');
      await app.request('DELETE', `/v4/node/instances/${node.id}/configs/${second}`);
      await addConfig(app, node.id, 'fourth');
      const deleted = await post(app, node.id, 'boot');
      assert.equal(deleted.status, 400, 'the last booted config was deleted');
      assert.equal((await post(app, node.id, 'boot', { config_id: third })).status, 200);
    });

    test('an empty node boots once it has a disk and a config', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app, { image: undefined, root_pass: undefined });
      const none = await post(app, node.id, 'boot');
      assert.equal(none.status, 400);
      assert.equal(none.body.errors[0].field, 'config_id');
      const disk = await app.request('POST', `/v4/node/instances/${node.id}/disks`, { body: { size: 2048, label: 'data' } });
      assert.equal(disk.status, 200, JSON.stringify(disk.body));
      await settle(app);
      await addConfig(app, node.id, 'boot-me');
      assert.equal((await post(app, node.id, 'boot')).status, 200);
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
    });
  });
}
