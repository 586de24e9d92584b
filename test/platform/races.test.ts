import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GLOBAL_GRANT_FLAGS } from '../../src/domain/account/grants.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply, type TestApp } from '../helpers/app.ts';
import { FIXTURES } from '../helpers/fixtures.ts';
import { eventsOf } from '../identity/helpers.ts';
import { createEmptyNode, createNode, IMAGE, settle } from '../nodes/helpers.ts';

/** How many copies of one request are sent at once. */
const COPIES = 20;

function copies(send: (i: number) => Promise<Reply>, n = COPIES): Promise<Reply[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i)));
}

/** Status codes with how often each came back, e.g. `{ "200": 1, "404": 19 }`. */
function tally(replies: readonly Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

function assertOneWinner(replies: readonly Reply[], loserStatus: number, what: string): void {
  const seen = tally(replies);
  assert.deepEqual(seen, { 200: 1, [loserStatus]: replies.length - 1 }, `${what}: ${JSON.stringify(seen)}`);
  for (const r of replies.filter((x) => x.status !== 200)) {
    assert.ok(Array.isArray(r.body.errors) && r.body.errors.length > 0, `${what}: the envelope`);
  }
}

async function deleteRace(app: TestApp, url: string, token: string, what: string): Promise<void> {
  const replies = await copies(() => app.request('DELETE', url, { token }));
  assertOneWinner(replies, 404, `${COPIES} parallel DELETE ${what}`);
  assert.equal((await app.request('GET', url, { token })).status, 404, `${what} is gone`);
}

for (const dialect of DIALECTS) {
  describe(`parallel requests on one object [${dialect}]`, () => {
    test('deletes: exactly one succeeds, the others are 404, the side effects happen once', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      const { token, accountId } = owner;

      const script = await app.request('POST', '/v4/node/stackscripts', {
        token,
        body: { label: 'race-script', script: '#!/bin/bash\necho race\n', images: [IMAGE] },
      });
      assert.equal(script.status, 200);
      const node = await createNode(app, { stackscript_id: script.body.id, label: 'race-node' }, token);
      assert.equal((await app.request('GET', `/v4/node/stackscripts/${script.body.id}`, { token })).body.deployments_active, 1);
      await deleteRace(app, `/v4/node/instances/${node.id}`, token, 'node');
      assert.equal((await eventsOf(app, accountId, 'node_delete')).length, 1, 'one node_delete event');
      const kept = await app.request('GET', '/v4/images', { token, headers: { 'x-filter': '{"type":"automatic"}' } });
      assert.equal(kept.body.results, 1, 'one automatic image kept from the deleted node');
      const after = await app.request('GET', `/v4/node/stackscripts/${script.body.id}`, { token });
      assert.equal(after.body.deployments_active, 0, 'the deployment is released once');

      await deleteRace(app, `/v4/node/stackscripts/${script.body.id}`, token, 'StackScript');
      assert.equal((await eventsOf(app, accountId, 'stackscript_delete')).length, 1);

      const tokenId = await FIXTURES.tokenId?.(app, owner);
      await deleteRace(app, `/v4/profile/tokens/${tokenId}`, token, 'token');
      assert.equal((await eventsOf(app, accountId, 'token_delete')).length, 1);

      const keyId = await FIXTURES.sshKeyId?.(app, owner);
      await deleteRace(app, `/v4/profile/sshkeys/${keyId}`, token, 'SSH key');
      assert.equal((await eventsOf(app, accountId, 'user_ssh_key_delete')).length, 1);

      const imageId = await FIXTURES.imageId?.(app, owner);
      await deleteRace(app, `/v4/images/${imageId}`, token, 'image');
      assert.equal((await eventsOf(app, accountId, 'image_delete')).length, 1);

      const user = await app.request('POST', '/v4/account/users', {
        token,
        body: { username: 'race-user', email: 'race@example.com', restricted: true },
      });
      assert.equal(user.status, 200);
      await deleteRace(app, '/v4/account/users/race-user', token, 'user');
      assert.equal((await eventsOf(app, accountId, 'user_delete')).length, 1);

      const empty = await createEmptyNode(app, { label: 'race-parts' }, token);
      const disk = await app.request('POST', `/v4/node/instances/${empty.id}/disks`, {
        token,
        body: { size: 1024, label: 'd1' },
      });
      assert.equal(disk.status, 200);
      const config = await app.request('POST', `/v4/node/instances/${empty.id}/configs`, {
        token,
        body: { label: 'c1', devices: { sda: { disk_id: disk.body.id } } },
      });
      assert.equal(config.status, 200);
      await deleteRace(app, `/v4/node/instances/${empty.id}/configs/${config.body.id}`, token, 'config');
      assert.equal((await eventsOf(app, accountId, 'node_config_delete')).length, 1);
      await settle(app);
      // A disk is deleted by a job: until it has run, the disk is there, busy (400), then gone (404).
      const diskDeletes = await copies(() =>
        app.request('DELETE', `/v4/node/instances/${empty.id}/disks/${disk.body.id}`, { token }),
      );
      const seen = tally(diskDeletes);
      assert.equal(seen[200], 1, `${COPIES} parallel DELETE disk: ${JSON.stringify(seen)}`);
      assert.equal((seen[400] ?? 0) + (seen[404] ?? 0), COPIES - 1, JSON.stringify(seen));
      await settle(app);
      assert.equal((await eventsOf(app, accountId, 'disk_delete')).length, 1);
    });

    test('unique fields: one create or rename wins, the others get the 400 the check gives', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { token } = await admin(app);

      const users = await copies(() =>
        app.request('POST', '/v4/account/users', { token, body: { username: 'same-name', email: 'same@example.com' } }),
      );
      assertOneWinner(users, 400, `${COPIES} parallel user creates with one username`);
      for (const r of users.filter((x) => x.status === 400)) assert.equal(r.body.errors[0].field, 'username');

      const nodes = await copies(() =>
        app.request('POST', '/v4/node/instances', {
          token,
          body: { region: 'us-east', type: 'g6-nanode-1', label: 'same-label' },
        }),
      );
      assertOneWinner(nodes, 400, `${COPIES} parallel node creates with one label`);
      for (const r of nodes.filter((x) => x.status === 400)) assert.equal(r.body.errors[0].field, 'label');

      const a = await createEmptyNode(app, { label: 'rename-a' }, token);
      const b = await createEmptyNode(app, { label: 'rename-b' }, token);
      const renames = await copies((i) =>
        app.request('PUT', `/v4/node/instances/${i % 2 ? a.id : b.id}`, { token, body: { label: 'renamed-to-one' } }),
      );
      assert.equal(renames.filter((r) => r.status >= 500).length, 0, JSON.stringify(tally(renames)));
      const named = await app.request('GET', '/v4/node/instances', {
        token,
        headers: { 'x-filter': '{"label":"renamed-to-one"}' },
      });
      assert.equal(named.body.results, 1, 'one node holds the label');
      const winner = named.body.data[0].id;
      for (const [i, r] of renames.entries()) {
        const target = i % 2 ? a.id : b.id;
        if (target === winner) assert.equal(r.status, 200, 'renaming the holder to its own label is fine');
        else assert.equal(r.status, 400, `the other node's rename is refused: ${JSON.stringify(r.body)}`);
      }
    });

    test('more deletes and renames: an address, a username; creates that share a new VLAN', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { token, accountId } = await admin(app);

      const node = await createNode(app, { label: 'race-ips' }, token);
      const added = await app.request('POST', `/v4/node/instances/${node.id}/ips`, {
        token,
        body: { type: 'ipv4', public: false },
      });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      await deleteRace(app, `/v4/node/instances/${node.id}/ips/${added.body.address}`, token, 'private address');
      const ips = await app.request('GET', `/v4/node/instances/${node.id}/ips`, { token });
      assert.deepEqual(ips.body.ipv4.private, [], 'the private address is gone, once');

      for (const name of ['rename-a', 'rename-b']) {
        const made = await app.request('POST', '/v4/account/users', {
          token,
          body: { username: name, email: `${name}@example.com` },
        });
        assert.equal(made.status, 200);
      }
      const renames = await copies((i) =>
        app.request('PUT', `/v4/account/users/${i % 2 ? 'rename-a' : 'rename-b'}`, { token, body: { username: 'one-name' } }),
      );
      // The winner's old name is gone once it has won (404); the other user's renames are refused (400).
      const seen = tally(renames);
      assert.equal(seen[200], 1, JSON.stringify(seen));
      assert.equal((seen[400] ?? 0) + (seen[404] ?? 0), COPIES - 1, JSON.stringify(seen));
      for (const r of renames.filter((x) => x.status === 400)) assert.equal(r.body.errors[0].field, 'username');
      const names = (await app.request('GET', '/v4/account/users', { token })).body.data.map(
        (u: { username: string }) => u.username,
      );
      assert.ok(names.includes('one-name'), 'one user has the new name');
      assert.equal(names.filter((n: string) => n === 'rename-a' || n === 'rename-b').length, 1, 'the other keeps its name');

      const vlanNodes = await copies((i) =>
        app.request('POST', '/v4/node/instances', {
          token,
          body: {
            region: 'us-east',
            type: 'g6-nanode-1',
            label: `vlan-node-${i}`,
            image: IMAGE,
            root_pass: 'race-pass-1234',
            interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'race-lan' }],
          },
        }),
      );
      assert.deepEqual(tally(vlanNodes), { 200: COPIES }, JSON.stringify(vlanNodes.find((r) => r.status !== 200)?.body));
      const vlans = await app.runtime.ctx.db.selectFrom('vlans').select('label').where('account_id', '=', accountId).execute();
      assert.deepEqual(
        vlans.map((v) => v.label),
        ['race-lan'],
        'one VLAN made by twenty creates',
      );
    });

    test('read-modify-write: parallel grant changes to one user all land, none lost', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      const user = await newUser(app, owner.accountId, { restricted: true });
      const url = `/v4/account/users/${user.username}/grants`;
      const replies = await Promise.all(
        GLOBAL_GRANT_FLAGS.map((flag) => app.request('PUT', url, { token: owner.token, body: { global: { [flag]: true } } })),
      );
      assert.deepEqual(tally(replies), { 200: GLOBAL_GRANT_FLAGS.length });
      const global = (await app.request('GET', url, { token: owner.token })).body.global;
      for (const flag of GLOBAL_GRANT_FLAGS) assert.equal(global[flag], true, `${flag} was set`);
    });

    test('clones crossing between two nodes at once never fail with a 5xx', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { token } = await admin(app);
      // Two nodes with room for each other's one small disk.
      const withDisk = async (label: string) => {
        const node = await createEmptyNode(app, { label, type: 'g6-standard-2' }, token);
        const disk = await app.request('POST', `/v4/node/instances/${node.id}/disks`, { token, body: { size: 1024, label } });
        assert.equal(disk.status, 200);
        return { id: node.id as number, disks: [disk.body.id as number] };
      };
      const a = await withDisk('cross-a');
      const b = await withDisk('cross-b');
      await settle(app);
      const [disksA, disksB] = [a.disks, b.disks];
      const replies = await copies((i) =>
        i % 2
          ? app.request('POST', `/v4/node/instances/${a.id}/clone`, { token, body: { node_id: b.id, disks: disksA } })
          : app.request('POST', `/v4/node/instances/${b.id}/clone`, { token, body: { node_id: a.id, disks: disksB } }),
      );
      const seen = tally(replies);
      assert.ok(!Object.keys(seen).some((s) => Number(s) >= 500), JSON.stringify(seen));
      assert.ok((seen[200] ?? 0) >= 1, `at least one clone started: ${JSON.stringify(seen)}`);
      for (const r of replies.filter((x) => x.status !== 200)) assert.equal(r.status, 400, JSON.stringify(r.body));
    });
  });
}
