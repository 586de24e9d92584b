import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import {
  act,
  admin,
  badRequest,
  createEmptyNode,
  disksOf,
  eventsOf,
  getNode,
  layoutOf,
  manualClock,
  newAccount,
  newUser,
  ok,
  rootPassHash,
  runningNode,
  settle,
} from './helpers.ts';

function clone(app: TestApp, nodeId: number, body: unknown, token?: string) {
  return act(app, nodeId, 'clone', body, token);
}

const NEW = { region: 'us-east', type: 'g6-standard-1' };

async function nodeCount(app: TestApp): Promise<number> {
  const rows = await app.runtime.ctx.db.selectFrom('nodes').select('id').execute();
  return rows.length;
}

for (const dialect of DIALECTS) {
  describe(`cloning nodes [${dialect}]`, () => {
    test('to a new node: its own label, addresses and backups, the source tags, disks, configs and root password', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const source = await runningNode(app, { tags: ['web', 'prod'] });
      const res = ok(await clone(app, source.id, { ...NEW, label: 'web-copy', group: 'copies', backups_enabled: true }), 'clone');
      const made = res.body;
      assert.equal(made.label, 'web-copy');
      assert.equal(made.group, 'copies');
      assert.equal(made.status, 'cloning');
      assert.deepEqual(made.tags, ['prod', 'web']);
      assert.equal(made.ipv4.length, 1);
      assert.notDeepEqual(made.ipv4, source.ipv4);
      assert.ok(made.ipv6);
      assert.equal(made.backups.enabled, true);
      assert.ok(made.backups.schedule.window);
      assert.equal((await getNode(app, source.id)).status, 'running', 'the source is not held');
      const [event] = await eventsOf(app, me.accountId, 'node_clone');
      assert.equal(event?.entity_id, source.id);
      assert.equal(JSON.parse(event?.secondary_entity ?? '{}').id, made.id);

      await settle(app);
      assert.equal((await getNode(app, made.id)).status, 'offline');
      assert.deepEqual(await layoutOf(app, made.id), await layoutOf(app, source.id));
      assert.ok((await disksOf(app, made.id)).every((d) => d.status === 'ready'));
      assert.equal(await rootPassHash(app, made.id), await rootPassHash(app, source.id));
      assert.equal((await eventsOf(app, me.accountId, 'node_clone'))[0]?.status, 'finished');

      const unnamed = ok(await clone(app, source.id, NEW), 'clone without a label').body;
      assert.match(unnamed.label, new RegExp(`^node-us-east-${unnamed.id}$`));
    });

    test('to an existing node: the chosen configs with their disks and the disks named, tags added', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const source = await runningNode(app, { tags: ['web'] });
      const [main, swap] = await disksOf(app, source.id);
      const target = await createEmptyNode(app, { type: 'g6-standard-2', tags: ['spare'] });

      ok(await clone(app, source.id, { node_id: target.id, configs: [], disks: [swap?.id] }), 'one disk');
      assert.equal((await getNode(app, target.id)).status, 'cloning');
      badRequest(await clone(app, source.id, { node_id: target.id }), 'a busy target', undefined, /busy/i);
      await settle(app);
      const after = await getNode(app, target.id);
      assert.equal(after.status, 'offline', 'back as it was');
      assert.deepEqual(after.tags, ['spare', 'web']);
      assert.deepEqual(await layoutOf(app, target.id), {
        disks: [{ label: swap?.label, size: swap?.size, filesystem: 'swap' }],
        configs: [],
      });

      ok(await clone(app, source.id, { node_id: target.id }), 'every config and its disks');
      await settle(app);
      const layout = await layoutOf(app, target.id);
      assert.deepEqual(
        layout.disks.map((d) => d.label),
        [swap?.label, main?.label, swap?.label],
      );
      assert.deepEqual(layout.configs, (await layoutOf(app, source.id)).configs);

      badRequest(await clone(app, source.id, { node_id: target.id }), 'no room left', 'node_id', /insufficient/i);
      badRequest(await clone(app, source.id, { node_id: source.id }), 'onto itself', 'node_id');
      badRequest(await clone(app, source.id, { node_id: target.id, configs: [424242] }), 'unknown config', 'configs[0]');
      badRequest(await clone(app, source.id, { node_id: target.id, disks: [main?.id, 424242] }), 'unknown disk', 'disks[1]');
      badRequest(await clone(app, source.id, { node_id: target.id, region: 'us-east' }), 'new-node fields', 'region');
      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, { type: 'g6-standard-4' }, other.token);
      badRequest(await clone(app, source.id, { node_id: theirs.id }), "another account's node", 'node_id');
      assert.equal((await clone(app, theirs.id, { node_id: target.id })).status, 404, "another account's source");
    });

    test('a new node needs region, type (with room) and the add_nodes grant; an existing one does not', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const source = await runningNode(app);
      badRequest(await clone(app, source.id, {}), 'no region', 'region');
      badRequest(await clone(app, source.id, { region: 'us-east' }), 'no type', 'type');
      badRequest(await clone(app, source.id, { ...NEW, region: 'xx-nowhere' }), 'unknown region', 'region');
      badRequest(await clone(app, source.id, { ...NEW, type: 'g6-nanode-1' }), 'too small', 'type');
      const busy = await runningNode(app);
      ok(await act(app, busy.id, 'reboot'), 'reboot');
      badRequest(await clone(app, busy.id, NEW), 'a busy source', undefined, /busy/i);

      const bob = await newUser(app, me.accountId, { restricted: true });
      const target = await createEmptyNode(app, { type: 'g6-standard-2' });
      const grants = {
        node: [
          { id: source.id, permissions: 'read_write' },
          { id: target.id, permissions: 'read_write' },
        ],
      };
      ok(await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: grants }), 'grants');
      assert.equal((await clone(app, source.id, NEW, bob.token)).status, 403, 'no add_nodes');
      ok(await clone(app, source.id, { node_id: target.id }, bob.token), 'to a node bob may change');
      await settle(app);
      ok(
        await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: { global: { add_nodes: true } } }),
        'grant',
      );
      const made = ok(await clone(app, source.id, NEW, bob.token), 'with add_nodes').body;
      ok(await app.request('GET', `/v4/node/instances/${made.id}`, { token: bob.token }), 'bob may see the node he made');
    });

    test('at most five clones from one source run at once: the sixth gets 400 until one has finished', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const source = await runningNode(app);
      for (let i = 0; i < 5; i += 1) ok(await clone(app, source.id, NEW), `clone ${i + 1}`);
      badRequest(await clone(app, source.id, NEW), 'the sixth', undefined, /at most 5/i);
      ok(await act(app, source.id, 'reboot'), 'the source stays usable meanwhile');
      await settle(app);
      ok(await clone(app, source.id, NEW), 'once they have finished');
    });

    test('20 clone requests at the same instant over HTTP: exactly five succeed', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const source = await runningNode(app);
      const before = await nodeCount(app);
      const server = app.runtime.app;
      assert.ok(server);
      const base = await server.listen({ port: 0, host: '127.0.0.1' });
      const replies = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await fetch(`${base}/v4/node/instances/${source.id}/clone`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify(NEW),
          });
          return { status: res.status, body: (await res.json()) as { errors: { reason: string }[] } };
        }),
      );
      const statuses = replies.map((r) => r.status).sort();
      assert.deepEqual(
        statuses,
        [...Array(5).fill(200), ...Array(15).fill(400)],
        JSON.stringify(replies.filter((r) => r.status >= 500)),
      );
      for (const r of replies.filter((x) => x.status === 400)) assert.match(r.body.errors[0]?.reason ?? '', /at most 5/i);
      assert.equal(await nodeCount(app), before + 5, 'the refused requests left no node behind');
      const row = await app.runtime.ctx.db
        .selectFrom('nodes')
        .select('clones_running')
        .where('id', '=', source.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.clones_running, 5);
      await settle(app);
      const done = await app.runtime.ctx.db
        .selectFrom('nodes')
        .select('clones_running')
        .where('id', '=', source.id)
        .executeTakeFirstOrThrow();
      assert.equal(done.clones_running, 0);
    });
  });
}
