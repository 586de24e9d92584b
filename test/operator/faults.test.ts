import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { runFaultsClear, runRegionSet } from '../../src/cli/admin-control-commands.ts';
import { startRuntime } from '../../src/runtime.ts';
import { DIALECTS } from '../helpers/app.ts';
import { getNode, nodeBody, runningNode, settle } from '../nodes/helpers.ts';
import { cumulo, type OperatorApp, ok, operatorApp } from './helpers.ts';

async function createIn(app: OperatorApp, region: string) {
  return app.request('POST', '/v4/node/instances', { body: nodeBody({ region }) });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

for (const dialect of DIALECTS) {
  describe(`faults [${dialect}]`, () => {
    test('node maintenance and an unexpected power-off, through the admin API and the CLI', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await runningNode(app);
      assert.deepEqual(await ok(app.admin('POST', `/admin/nodes/${node.id}/maintenance`)), { status: 'stopped' });
      assert.equal((await getNode(app, node.id)).status, 'stopped');
      const notRunning = await app.admin('POST', `/admin/nodes/${node.id}/power-off`);
      assert.equal(notRunning.status, 400);
      assert.match(notRunning.body.errors[0].reason, /only a running node/);
      const missing = await app.admin('POST', '/admin/nodes/987654/maintenance');
      assert.equal(missing.status, 404);
      assert.match(missing.body.errors[0].reason, /No node with id 987654/);

      await ok(app.request('POST', `/v4/node/instances/${node.id}/boot`));
      await settle(app);
      assert.deepEqual(await ok(app.admin('POST', `/admin/nodes/${node.id}/power-off`)), {
        status: 'offline',
        watchdog_boot: true,
      });
      assert.equal((await getNode(app, node.id)).status, 'booting', 'the watchdog reacts');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');

      const off = await cumulo(app, ['admin', 'nodes', 'power-off', String(node.id)]);
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(JSON.parse(off.stdout), { status: 'offline', watchdog_boot: true });
      await settle(app);
      const down = await cumulo(app, ['admin', 'nodes', 'maintenance', String(node.id)]);
      assert.equal(down.code, 0, down.stderr);
      assert.deepEqual(JSON.parse(down.stdout), { status: 'stopped' });
      assert.equal((await getNode(app, node.id)).status, 'stopped');
      const bad = await cumulo(app, ['admin', 'nodes', 'maintenance', 'abc']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /node id/);
    });

    test('a region outage: GET /v4/regions shows it, reads work, node creation there fails with a clear 400; ok or clearing ends it', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await runningNode(app, { region: 'us-east' });
      const faults = await ok(app.admin('PUT', '/admin/regions/us-east', { body: { status: 'outage' } }));
      assert.deepEqual(faults.regions, [{ id: 'us-east', status: 'outage' }]);
      assert.equal((await ok(app.request('GET', '/v4/regions/us-east'))).status, 'outage');
      const listed = await ok(app.request('GET', '/v4/regions', { headers: { 'x-filter': '{"status": "outage"}' } }));
      assert.deepEqual(
        listed.data.map((r: { id: string }) => r.id),
        ['us-east'],
      );
      assert.equal((await getNode(app, node.id)).region, 'us-east', 'reads still work');
      await ok(app.request('GET', '/v4/node/instances'));
      const refused = await createIn(app, 'us-east');
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.errors, [
        { field: 'region', reason: 'Region us-east has an outage; no nodes can be placed there until it is resolved' },
      ]);
      assert.equal((await createIn(app, 'eu-west')).status, 200, 'other regions work');
      const upload = await app.request('POST', '/v4/images/upload', { body: { label: 'x', region: 'us-east' } });
      assert.equal(upload.status, 400);
      assert.deepEqual(upload.body.errors, [
        { field: 'region', reason: 'Region us-east has an outage; no images can be uploaded there until it is resolved' },
      ]);

      // A server started on the same database (a restart) shows and enforces it too.
      const other = await startRuntime(app.runtime.ctx.config, {
        role: 'serve',
        logger: pino({ level: 'silent' }),
      });
      t.after(() => other.close());
      const seen = await other.app?.inject({ method: 'GET', url: '/v4/regions/us-east' });
      assert.equal(JSON.parse(seen?.body ?? '{}').status, 'outage');

      await ok(app.admin('PUT', '/admin/regions/us-east', { body: { status: 'ok' } }));
      assert.equal((await ok(app.request('GET', '/v4/regions/us-east'))).status, 'ok');
      assert.equal((await createIn(app, 'us-east')).status, 200);

      await ok(app.admin('PUT', '/admin/regions/eu-west', { body: { status: 'outage' } }));
      const cleared = await ok(app.admin('DELETE', '/admin/faults'));
      assert.deepEqual(cleared, { requests: null, regions: [] });
      assert.equal((await ok(app.request('GET', '/v4/regions/eu-west'))).status, 'ok');
      const unknown = await app.admin('PUT', '/admin/regions/mars-1', { body: { status: 'outage' } });
      assert.equal(unknown.status, 404);
      const badStatus = await app.admin('PUT', '/admin/regions/us-east', { body: { status: 'down' } });
      assert.equal(badStatus.status, 400);
    });

    test('cumulo admin regions set and faults clear, in-process and as processes', async (t) => {
      const app = await operatorApp(t, dialect);
      const set = await cumulo(app, ['admin', 'regions', 'set', 'us-east', '--status', 'outage']);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout).regions, [{ id: 'us-east', status: 'outage' }]);
      await app.runtime.ctx.operator.reload(); // what the server's cache does within a second
      assert.equal((await createIn(app, 'us-east')).status, 400);
      assert.equal((await ok(app.request('GET', '/v4/regions/us-east'))).status, 'outage');
      const clear = await cumulo(app, ['admin', 'faults', 'clear']);
      assert.equal(clear.code, 0, clear.stderr);
      await app.runtime.ctx.operator.reload();
      assert.equal((await createIn(app, 'us-east')).status, 200);

      const { ctx } = app.runtime;
      await runRegionSet(ctx, { region: 'eu-west', status: 'outage' });
      assert.equal((await createIn(app, 'eu-west')).status, 400);
      await assert.rejects(runRegionSet(ctx, { region: 'eu-west', status: 'sideways' }), /status/);
      assert.deepEqual(JSON.parse(await runFaultsClear(ctx)), { requests: null, regions: [] });
    });

    test('PUT /admin/faults: a share of matching v4 requests fail with a 5xx in the envelope, or wait; DELETE clears it', async (t) => {
      const app = await operatorApp(t, dialect);
      const set = await ok(app.admin('PUT', '/admin/faults', { body: { error_rate: 1, match: 'POST /node/*' } }));
      assert.deepEqual(set.requests, { error_rate: 1, latency_ms: 0, match: 'POST /node/*', status: 503 });
      const failed = await createIn(app, 'us-east');
      assert.equal(failed.status, 503);
      assert.deepEqual(Object.keys(failed.body), ['errors']);
      assert.match(failed.body.errors[0].reason, /^Injected fault: .*100% of "POST \/node\/\*"/);
      assert.equal((await app.request('GET', '/v4/node/instances')).status, 200, 'GET does not match');
      assert.equal((await app.request('POST', '/v4/profile/tokens', { body: {} })).status, 200, 'other paths do not match');
      await ok(app.admin('GET', '/admin/info'));

      await ok(app.admin('PUT', '/admin/faults', { body: { error_rate: 1, status: 500, match: '/regions/*' } }));
      assert.equal((await app.request('GET', '/v4/regions/us-east')).status, 500);
      assert.equal((await app.request('GET', '/v4/regions')).status, 200);

      await ok(app.admin('PUT', '/admin/faults', { body: { latency_ms: 300, match: 'GET /regions' } }));
      const slow = await timed(() => app.request('GET', '/v4/regions'));
      assert.equal(slow.value.status, 200);
      assert.ok(slow.ms >= 290, `waited ${slow.ms} ms`);
      const fast = await timed(() => app.request('GET', '/v4/node/types'));
      assert.ok(fast.ms < 250, `did not wait (${fast.ms} ms)`);

      assert.deepEqual(await ok(app.admin('DELETE', '/admin/faults')), { requests: null, regions: [] });
      assert.equal((await createIn(app, 'us-east')).status, 200);

      for (const body of [{ match: 'node/*' }, { error_rate: 2 }, { latency_ms: -1 }, { status: 502 }, { match: 'POST' }]) {
        const res = await app.admin('PUT', '/admin/faults', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
      }
    });

    test('with a seed, which requests fail is the same in every run; cumulo admin faults set/clear as processes', async (t) => {
      const statuses: number[][] = [];
      for (const _run of [1, 2]) {
        const app = await operatorApp(t, dialect, { seed: 7 });
        await ok(app.admin('PUT', '/admin/faults', { body: { error_rate: 0.5, match: 'GET /regions*' } }));
        const run: number[] = [];
        for (let i = 0; i < 24; i += 1) run.push((await app.request('GET', '/v4/regions')).status);
        statuses.push(run);
      }
      assert.deepEqual(statuses[0], statuses[1]);
      const failures = (statuses[0] ?? []).filter((s) => s === 503).length;
      assert.ok(failures > 3 && failures < 21, `${failures} of 24 failed`);

      const app = await operatorApp(t, dialect);
      const set = await cumulo(app, ['admin', 'faults', 'set', '--error-rate', '1', '--match', 'GET /regions']);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout).requests, { error_rate: 1, latency_ms: 0, match: 'GET /regions', status: 503 });
      await app.runtime.ctx.operator.reload();
      assert.equal((await app.request('GET', '/v4/regions')).status, 503);
      const bad = await cumulo(app, ['admin', 'faults', 'set', '--error-rate', 'lots']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /error-rate: Must be a number/);
      const clear = await cumulo(app, ['admin', 'faults', 'clear']);
      assert.equal(clear.code, 0, clear.stderr);
      await app.runtime.ctx.operator.reload();
      assert.equal((await app.request('GET', '/v4/regions')).status, 200);
    });
  });
}
