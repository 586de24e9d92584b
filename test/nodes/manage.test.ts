import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, createNode, eventsOf, getNode, settle } from './helpers.ts';

async function listIds(app: TestApp, filter?: unknown, token?: string): Promise<number[]> {
  const res = await app.request('GET', '/v4/node/instances?page_size=100', {
    ...(filter === undefined ? {} : { headers: { 'x-filter': JSON.stringify(filter) } }),
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((n: { id: number }) => n.id);
}

for (const dialect of DIALECTS) {
  describe(`node list, view, update and delete [${dialect}]`, () => {
    test('list pages and filters on the filterable fields, tags and addresses included', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createEmptyNode(app, { label: 'alpha', tags: ['prod', 'web'], group: 'g1' });
      const b = await createNode(app, { label: 'beta', region: 'eu-west', tags: ['prod'], private_ip: true });
      const c = await createEmptyNode(app, { label: 'gamma', region: 'eu-west' });
      const other = await newAccount(app);
      await createEmptyNode(app, { label: 'theirs' }, other.token);

      assert.deepEqual(await listIds(app), [a.id, b.id, c.id]);
      assert.deepEqual(await listIds(app, { region: 'eu-west' }), [b.id, c.id]);
      assert.deepEqual(await listIds(app, { label: { '+contains': 'ta' } }), [b.id]);
      assert.deepEqual(await listIds(app, { tags: 'prod' }), [a.id, b.id]);
      assert.deepEqual(await listIds(app, { tags: { '+neq': 'web' } }), [b.id, c.id]);
      assert.deepEqual(await listIds(app, { ipv4: b.ipv4[1] }), [b.id]);
      assert.deepEqual(await listIds(app, { ipv4: { '+contains': '192.168.' } }), [b.id]);
      assert.deepEqual(await listIds(app, { image: null }), [a.id, c.id]);
      assert.deepEqual(await listIds(app, { group: 'g1' }), [a.id]);
      assert.deepEqual(await listIds(app, { id: { '+gt': a.id } }), [b.id, c.id]);
      assert.deepEqual(await listIds(app, { '+order_by': 'label', '+order': 'desc' }), [c.id, b.id, a.id]);
      const bad = await app.request('GET', '/v4/node/instances', {
        headers: { 'x-filter': JSON.stringify({ status: 'running' }) },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].field, 'X-Filter');

      const page = await app.request('GET', '/v4/node/instances?page=2&page_size=25');
      assert.deepEqual([page.body.page, page.body.pages, page.body.results, page.body.data.length], [2, 1, 3, 0]);
      const listed = (await app.request('GET', '/v4/node/instances')).body.data[1];
      assert.deepEqual(listed, await getNode(app, b.id), 'the list shows nodes as the view does');
      assert.deepEqual(listed.tags, ['prod']);
      assert.equal(listed.ipv4.length, 2);
    });

    test("another account's node is not found; a restricted user sees only granted nodes and writes only with read_write", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const mine = await createEmptyNode(app, { label: 'mine' });
      const ro = await createEmptyNode(app, { label: 'read-only' });
      const hidden = await createEmptyNode(app, { label: 'hidden' });
      const other = await newAccount(app);
      assert.equal((await app.request('GET', `/v4/node/instances/${mine.id}`, { token: other.token })).status, 404);
      assert.equal((await app.request('DELETE', `/v4/node/instances/${mine.id}`, { token: other.token })).status, 404);

      const bob = await newUser(app, me.accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: {
          node: [
            { id: mine.id, permissions: 'read_write' },
            { id: ro.id, permissions: 'read_only' },
          ],
        },
      });
      assert.deepEqual(await listIds(app, undefined, bob.token), [mine.id, ro.id]);
      assert.equal((await app.request('GET', `/v4/node/instances/${hidden.id}`, { token: bob.token })).status, 404);
      assert.equal((await app.request('GET', `/v4/node/instances/${ro.id}`, { token: bob.token })).status, 200);
      const write = await app.request('PUT', `/v4/node/instances/${ro.id}`, { token: bob.token, body: { label: 'renamed' } });
      assert.equal(write.status, 403);
      const allowed = await app.request('PUT', `/v4/node/instances/${mine.id}`, { token: bob.token, body: { label: 'renamed' } });
      assert.equal(allowed.status, 200);
      const grants = await app.request('GET', `/v4/account/users/${bob.username}/grants`);
      assert.deepEqual(
        grants.body.node.map((g: { id: number; label: string }) => [g.id, g.label]),
        [
          [mine.id, 'renamed'],
          [ro.id, 'read-only'],
          [hidden.id, 'hidden'],
        ],
      );
    });

    test('update changes only alerts, backups.schedule, group, label, tags and watchdog_enabled', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app, { label: 'before', tags: ['a-tag'] });
      await createEmptyNode(app, { label: 'taken' });
      const res = await app.request('PUT', `/v4/node/instances/${node.id}`, {
        body: {
          label: 'after',
          group: 'grp',
          tags: ['b-tag', 'c-tag'],
          watchdog_enabled: false,
          alerts: { cpu: 150, io: 5000 },
          backups: { enabled: true, schedule: { day: 'Monday', window: 'W4' } },
          status: 'running',
          region: 'eu-west',
          type: 'g6-standard-32',
          ipv4: ['1.2.3.4'],
          specs: { disk: 1 },
        },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const n = res.body;
      assert.deepEqual(
        [n.label, n.group, n.tags, n.watchdog_enabled, n.status, n.region, n.type, n.ipv4],
        ['after', 'grp', ['b-tag', 'c-tag'], false, 'offline', 'us-east', 'g6-standard-1', node.ipv4],
      );
      assert.deepEqual(n.alerts, {
        cpu: 150,
        io: 5000,
        network_in: 10,
        network_out: 10,
        transfer_quota: 80,
        system_alerts: [],
        user_alerts: [],
      });
      assert.deepEqual(n.backups, {
        enabled: false,
        schedule: { day: 'Monday', window: 'W4' },
        last_successful: null,
        available: false,
      });
      assert.deepEqual(await getNode(app, node.id), n);
      const [event] = await eventsOf(app, me.accountId, 'node_update');
      assert.equal(event?.entity_label, 'after');

      const cases: [unknown, string][] = [
        [{ label: 'taken' }, 'label'],
        [{ label: 'a__b' }, 'label'],
        [{ label: 'no' }, 'label'],
        [{ backups: { schedule: { day: 'Someday' } } }, 'backups.schedule.day'],
        [{ backups: { schedule: { window: 'W3' } } }, 'backups.schedule.window'],
        [{ alerts: { cpu: -1 } }, 'alerts.cpu'],
        [{ tags: ['x'] }, 'tags[0]'],
      ];
      for (const [body, field] of cases) {
        const bad = await app.request('PUT', `/v4/node/instances/${node.id}`, { body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.errors[0].field, field, JSON.stringify(bad.body));
      }
      const same = await app.request('PUT', `/v4/node/instances/${node.id}`, { body: { label: 'after' } });
      assert.equal(same.status, 200, 'keeping its own label is no clash');
    });

    test('a restricted user may not change tags, but may send them back unchanged', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app, { tags: ['one', 'two'] });
      const bob = await newUser(app, me.accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { node: [{ id: node.id, permissions: 'read_write' }] },
      });
      const changed = await app.request('PUT', `/v4/node/instances/${node.id}`, { token: bob.token, body: { tags: ['one'] } });
      assert.equal(changed.status, 403);
      const unchanged = await app.request('PUT', `/v4/node/instances/${node.id}`, {
        token: bob.token,
        body: { tags: ['two', 'one'], group: 'x' },
      });
      assert.equal(unchanged.status, 200);
      assert.deepEqual(unchanged.body.tags, ['one', 'two']);
    });

    test('delete releases addresses, removes disks, configs, backups, tags and grants; ids are never reused', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { db } = app.runtime.ctx;
      const node = await createNode(app, { tags: ['doomed'], private_ip: true });
      await settle(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { node: [{ id: node.id, permissions: 'read_only' }] },
      });
      const now = new Date().toISOString().slice(0, 19);
      await db
        .insertInto('backups')
        .values({
          account_id: me.accountId,
          node_id: node.id,
          type: 'snapshot',
          status: 'successful',
          label: 'snap',
          region: 'us-east',
          content: '{}',
          created: now,
          updated: now,
          finished: now,
        })
        .execute();

      const res = await app.request('DELETE', `/v4/node/instances/${node.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}`)).status, 404);
      for (const table of ['disks', 'configs', 'backups'] as const) {
        const rows = await db.selectFrom(table).select('id').where('node_id', '=', node.id).execute();
        assert.equal(rows.length, 0, table);
      }
      const addresses = await db.selectFrom('ip_addresses').select('address').where('account_id', '=', me.accountId).execute();
      assert.equal(addresses.length, 0, 'addresses are released');
      const tags = await db.selectFrom('entity_tags').select('tag').where('entity_id', '=', node.id).execute();
      assert.equal(tags.length, 0);
      const grants = await db.selectFrom('entity_grants').select('entity_id').where('entity_type', '=', 'node').execute();
      assert.equal(grants.length, 0);
      const kept = await app.request('GET', '/v4/images', { headers: { 'x-filter': JSON.stringify({ type: 'automatic' }) } });
      assert.equal(kept.body.results, 1, 'an automatic image of the main disk is kept');
      const [image] = kept.body.data;
      assert.ok(image.expiry, 'automatic images expire');
      assert.equal(image.size, node.specs.disk - 512);
      assert.equal(image.status, 'available');
      const [event] = await eventsOf(app, me.accountId, 'node_delete');
      assert.equal(event?.entity_id, node.id);
      assert.equal(event?.status, 'notification');

      const next = await createNode(app);
      assert.ok(next.id > node.id, 'a new node never gets a deleted node id');
      await settle(app);
    });

    test('a node deleted while provisioning stays deleted when its job runs', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app);
      assert.equal((await app.request('DELETE', `/v4/node/instances/${node.id}`)).status, 200);
      await settle(app);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}`)).status, 404);
      const jobs = await app.runtime.ctx.db
        .selectFrom('jobs')
        .select(['kind', 'status'])
        .where('status', '=', 'failed')
        .execute();
      assert.deepEqual(jobs, []);
    });
  });
}
