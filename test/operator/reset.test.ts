import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { runAdminReset } from '../../src/cli/admin-state-commands.ts';
import { ADMIN_TOKEN, DIALECTS } from '../helpers/app.ts';
import { createNode, runningNode } from '../nodes/helpers.ts';
import { cumulo, type OperatorApp, ok, operatorApp } from './helpers.ts';

/** Nodes, a token, a held job, operator settings and a blob: state a reset must remove (and a built public image it keeps). */
async function busyState(app: OperatorApp) {
  await runningNode(app);
  await runningNode(app);
  await ok(app.request('POST', '/v4/profile/tokens', { body: { label: 'ci' } }));
  await ok(app.admin('PUT', '/admin/transitions/node_boot', { body: { mode: 'manual' } }));
  await ok(app.admin('PUT', '/admin/faults', { body: { latency_ms: 1, match: 'GET /nothing' } }));
  await ok(app.admin('PUT', '/admin/regions/us-east', { body: { status: 'outage' } }));
  await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: 3600 } }));
  await createNode(app, { region: 'us-west' }); // provisioning: its job is in flight
  await app.runtime.ctx.blobs.put('images/1/x.img.gz', Readable.from([Buffer.from('data')]));
  await app.runtime.ctx.blobs.put('public/busybox/vmlinuz', Readable.from([Buffer.from('kernel')]));
  const info = await ok(app.admin('GET', '/admin/info'));
  assert.ok(info.counts.nodes >= 3);
  assert.ok(info.jobs.queued > 0);
  assert.ok(info.counts.operator_settings >= 4);
}

/** What a fresh install holds, and that it works: the bootstrap token, ids from 1, default settings. */
async function assertFresh(app: OperatorApp) {
  const info = await ok(app.admin('GET', '/admin/info'));
  const { catalog } = app.runtime.ctx;
  assert.deepEqual(Object.fromEntries(Object.entries(info.counts).filter(([, n]) => n !== 0)), {
    accounts: 1,
    users: 1,
    oauth_clients: 1,
    tokens: 1,
    regions: catalog.data.regions.length,
    node_types: catalog.data.types.length,
    kernels: catalog.data.kernels.length,
    images: catalog.data.images.length,
  });
  assert.deepEqual(info.jobs, { queued: 0, held: 0, failed: 0 });
  assert.deepEqual(info.faults, { requests: null, regions: [] });
  assert.deepEqual(info.transitions, []);
  assert.equal(info.clock.offset_seconds, 0);
  assert.equal(await app.runtime.ctx.blobs.exists('images/1/x.img.gz'), false);
  assert.equal(await app.runtime.ctx.blobs.exists('public/busybox/vmlinuz'), true, 'built public images stay');
  const region = await ok(app.request('GET', '/v4/regions/us-east'));
  assert.equal(region.status, 'ok');
  const profile = await ok(app.request('GET', '/v4/profile'));
  assert.equal(profile.username, 'admin');
  const node = await createNode(app);
  assert.equal(node.id, 1, 'ids start again at 1');
  const token = await ok(app.request('POST', '/v4/profile/tokens', { body: { label: 'again' } }));
  assert.equal(token.id, 2);
}

for (const dialect of DIALECTS) {
  describe(`reset [${dialect}]`, () => {
    test('POST /admin/reset: every table as after a fresh install, jobs cancelled, blobs gone (built public images kept); the server keeps serving', async (t) => {
      const app = await operatorApp(t, dialect);
      await busyState(app);
      assert.deepEqual(await ok(app.admin('POST', '/admin/reset')), {});
      await assertFresh(app);
    });

    test('without CUMULO_BOOTSTRAP_TOKEN the reset answers the new bootstrap token, as a first start prints it', async (t) => {
      const app = await operatorApp(t, dialect, { bootstrapToken: undefined });
      const reset = await ok(app.admin('POST', '/admin/reset'));
      assert.match(reset.bootstrap_token, /^[0-9a-f]{64}$/);
      assert.equal((await app.request('GET', '/v4/profile', { token: reset.bootstrap_token })).status, 200);
      assert.equal((await app.request('GET', '/v4/profile', { token: ADMIN_TOKEN })).status, 401);
    });

    test('cumulo admin reset (in-process and as a process on the database a server uses)', async (t) => {
      const app = await operatorApp(t, dialect);
      await busyState(app);
      assert.equal(await runAdminReset(app.runtime.ctx), '{}\n');
      await assertFresh(app);

      await busyState(app);
      const res = await cumulo(app, ['admin', 'reset'], { env: { CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN } });
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout), {});
      // The server reads the operator's settings again within a second; a test need not wait.
      await app.runtime.ctx.operator.reload();
      await assertFresh(app);
    });
  });
}
