import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, deviceMap, eventsOf, IMAGE, ROOT_PASS, runningNode, settle } from './helpers.ts';

async function disksOf(app: TestApp, nodeId: number) {
  return (await app.request('GET', `/v4/node/instances/${nodeId}/disks`)).body.data as {
    id: number;
    label: string;
    size: number;
    status: string;
    filesystem: string;
  }[];
}

for (const dialect of DIALECTS) {
  describe(`node disks [${dialect}]`, () => {
    test('create (empty or from an image) is not ready until its job ends; the node is busy meanwhile', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app, { type: 'g6-nanode-1' });
      const base = `/v4/node/instances/${node.id}/disks`;
      const empty = await app.request('POST', base, { body: { size: 10000 } });
      assert.equal(empty.status, 200, JSON.stringify(empty.body));
      assert.deepEqual(
        [empty.body.label, empty.body.size, empty.body.filesystem, empty.body.status],
        ['10000 MB Disk', 10000, 'ext4', 'not ready'],
      );
      const busy = await app.request('POST', base, { body: { size: 100 } });
      assert.equal(busy.status, 400);
      assert.match(busy.body.errors[0].reason, /busy/i);
      await settle(app);
      assert.equal((await app.request('GET', `${base}/${empty.body.id}`)).body.status, 'ready');
      const [event] = await eventsOf(app, me.accountId, 'disk_create');
      assert.equal(event?.status, 'finished');
      assert.equal(JSON.parse(event?.secondary_entity ?? '{}').id, empty.body.id);

      const fromImage = await app.request('POST', base, {
        body: { size: 3000, image: IMAGE, root_pass: ROOT_PASS, label: 'system', filesystem: 'ext3' },
      });
      assert.equal(fromImage.status, 200, JSON.stringify(fromImage.body));
      await settle(app);
      assert.deepEqual(
        (await disksOf(app, node.id)).map((d) => [d.label, d.size, d.filesystem, d.status]),
        [
          ['10000 MB Disk', 10000, 'ext4', 'ready'],
          ['system', 3000, 'ext3', 'ready'],
        ],
      );
    });

    test('create checks space, the image size, root_pass and the filesystem', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app, { type: 'g6-nanode-1' });
      const base = `/v4/node/instances/${node.id}/disks`;
      const cases: [Record<string, unknown>, string][] = [
        [{ size: 25601 }, 'size'],
        [{ size: 0 }, 'size'],
        [{ label: 'x' }, 'size'],
        [{ size: 1000, image: IMAGE, root_pass: ROOT_PASS }, 'size'],
        [{ size: 2000, image: IMAGE }, 'root_pass'],
        [{ size: 2000, image: IMAGE, root_pass: ROOT_PASS, filesystem: 'swap' }, 'filesystem'],
        [{ size: 2000, image: 'node/none', root_pass: ROOT_PASS }, 'image'],
        [{ size: 2000, filesystem: 'zfs' }, 'filesystem'],
        [{ size: 2000, authorized_keys: ['nope'] }, 'authorized_keys[0]'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('POST', base, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      assert.equal(
        (await app.request('POST', base, { body: { size: 25600, filesystem: 'raw' } })).status,
        200,
        'the whole disk fits',
      );
    });

    test('update changes the label only; delete passes through deleting and leaves the configs', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await runningNode(app);
      const [main, swap] = await disksOf(app, node.id);
      assert.ok(main && swap);
      const base = `/v4/node/instances/${node.id}/disks`;
      const renamed = await app.request('PUT', `${base}/${main.id}`, { body: { label: 'root', size: 1, filesystem: 'raw' } });
      assert.equal(renamed.status, 200);
      assert.deepEqual([renamed.body.label, renamed.body.size, renamed.body.filesystem], ['root', main.size, 'ext4']);
      assert.equal((await eventsOf(app, me.accountId, 'disk_update')).length, 1);
      assert.equal((await app.request('PUT', `${base}/${main.id}`, { body: { label: '' } })).status, 400);

      assert.equal((await app.request('DELETE', `${base}/${swap.id}`)).status, 200);
      assert.equal((await app.request('GET', `${base}/${swap.id}`)).body.status, 'deleting');
      await settle(app);
      assert.equal((await app.request('GET', `${base}/${swap.id}`)).status, 404);
      const [config] = (await app.request('GET', `/v4/node/instances/${node.id}/configs`)).body.data;
      assert.deepEqual(config.devices, deviceMap({ sda: main.id }), 'the deleted disk left the config');
      assert.equal((await eventsOf(app, me.accountId, 'disk_delete'))[0]?.status, 'finished');
    });

    test('clone copies a disk when there is room; resize stays within the type', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await runningNode(app, { type: 'g6-standard-2', swap_size: 256 });
      const [main, swap] = await disksOf(app, node.id);
      assert.ok(main && swap);
      const base = `/v4/node/instances/${node.id}/disks`;
      const noRoom = await app.request('POST', `${base}/${main.id}/clone`);
      assert.equal(noRoom.status, 400);
      assert.equal(noRoom.body.errors[0].field, 'size');

      const tooBig = await app.request('POST', `${base}/${main.id}/resize`, { body: { size: 81920 } });
      assert.equal(tooBig.status, 400);
      assert.equal((await app.request('POST', `${base}/${main.id}/resize`, { body: { size: 0 } })).status, 400);
      assert.equal((await app.request('POST', `${base}/${main.id}/resize`, { body: { size: 40000 } })).status, 200);
      assert.equal((await app.request('GET', `${base}/${main.id}`)).body.status, 'not ready');
      assert.equal((await app.request('POST', `${base}/${swap.id}/clone`)).status, 400, 'busy while resizing');
      await settle(app);
      const resized = (await app.request('GET', `${base}/${main.id}`)).body;
      assert.deepEqual([resized.size, resized.status], [40000, 'ready']);

      const copy = await app.request('POST', `${base}/${main.id}/clone`);
      assert.equal(copy.status, 200, JSON.stringify(copy.body));
      assert.deepEqual(
        [copy.body.label, copy.body.size, copy.body.filesystem, copy.body.status],
        [`Copy of ${main.label}`, 40000, 'ext4', 'not ready'],
      );
      await settle(app);
      assert.equal((await app.request('GET', `${base}/${copy.body.id}`)).body.status, 'ready');
      assert.equal((await eventsOf(app, me.accountId, 'disk_duplicate'))[0]?.status, 'finished');
      assert.equal((await eventsOf(app, me.accountId, 'disk_resize'))[0]?.status, 'finished');
    });

    test('password reset needs a powered-off node and a filesystem with a root user', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await runningNode(app);
      const [main, swap] = await disksOf(app, node.id);
      assert.ok(main && swap);
      const base = `/v4/node/instances/${node.id}/disks`;
      const hashOf = async () =>
        (
          await app.runtime.ctx.db
            .selectFrom('nodes')
            .select('root_pass_hash')
            .where('id', '=', node.id)
            .executeTakeFirstOrThrow()
        ).root_pass_hash;
      const before = await hashOf();
      const running = await app.request('POST', `${base}/${main.id}/password`, { body: { password: 'n3w-passw0rd' } });
      assert.equal(running.status, 400);
      await app.request('POST', `/v4/node/instances/${node.id}/shutdown`);
      await settle(app);
      assert.equal(
        (await app.request('POST', `${base}/${swap.id}/password`, { body: { password: 'n3w-passw0rd' } })).status,
        400,
      );
      const short = await app.request('POST', `${base}/${main.id}/password`, { body: { password: 'short' } });
      assert.equal(short.status, 400);
      assert.equal(short.body.errors[0].field, 'password');
      const ok = await app.request('POST', `${base}/${main.id}/password`, { body: { password: 'n3w-passw0rd' } });
      assert.equal(ok.status, 200);
      assert.notEqual(await hashOf(), before);
      assert.equal((await app.request('POST', `/v4/node/instances/${node.id}/boot`)).status, 400, 'busy resetting');
      await settle(app);
      assert.equal((await eventsOf(app, me.accountId, 'password_reset'))[0]?.status, 'finished');
      assert.equal((await app.request('POST', `/v4/node/instances/${node.id}/boot`)).status, 200);
    });
  });
}
