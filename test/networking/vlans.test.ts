import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode } from '../nodes/helpers.ts';

/** A config on the node with a VLAN interface for each label (eth0 public). */
async function vlanConfig(app: TestApp, nodeId: number, labels: string[], token?: string): Promise<number> {
  const interfaces = [{ purpose: 'public' }, ...labels.map((label) => ({ purpose: 'vlan', label }))];
  const res = await app.request('POST', `/v4/node/instances/${nodeId}/configs`, {
    body: { label: `cfg-${labels.join('-')}`, devices: {}, interfaces },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

function summary(page: { data: { label: string; region: string; nodes: number[] }[] }) {
  return page.data.map((v) => [v.label, v.region, v.nodes]);
}

for (const dialect of DIALECTS) {
  describe(`VLANs [${dialect}]`, () => {
    test('listed from node interfaces with their nodes and region; a VLAN no node is attached to disappears', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createEmptyNode(app);
      const b = await createEmptyNode(app);
      const c = await createEmptyNode(app, { region: 'us-central' });
      const configA = await vlanConfig(app, a.id, ['backend', 'front']);
      await vlanConfig(app, b.id, ['backend']);
      // A second config of the same node on the same VLAN: the node is listed once.
      await vlanConfig(app, b.id, ['backend']);
      await vlanConfig(app, c.id, ['backend']);
      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, other.token);
      await vlanConfig(app, theirs.id, ['backend'], other.token);

      const res = await app.request('GET', '/v4/networking/vlans');
      assert.equal(res.status, 200);
      assert.deepEqual(summary(res.body), [
        ['backend', 'us-east', [a.id, b.id]],
        ['front', 'us-east', [a.id]],
        ['backend', 'us-central', [c.id]],
      ]);
      assert.deepEqual([res.body.page, res.body.pages, res.body.results], [1, 1, 3]);
      assert.match(res.body.data[0].created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

      const byRegion = await app.request('GET', '/v4/networking/vlans', { headers: { 'x-filter': '{"region":"us-central"}' } });
      assert.deepEqual(summary(byRegion.body), [['backend', 'us-central', [c.id]]]);
      const byLabel = await app.request('GET', '/v4/networking/vlans', { headers: { 'x-filter': '{"label":"front"}' } });
      assert.deepEqual(summary(byLabel.body), [['front', 'us-east', [a.id]]]);
      const byCreated = await app.request('GET', '/v4/networking/vlans', { headers: { 'x-filter': '{"created":"x"}' } });
      assert.equal(byCreated.status, 400, 'created is a time, and x is none');
      assert.equal(byCreated.body.errors[0].field, 'X-Filter');
      for (const size of ['24', '501']) {
        const bad = await app.request('GET', `/v4/networking/vlans?page_size=${size}`);
        assert.equal(bad.status, 400, `page_size ${size}`);
        assert.equal(bad.body.errors[0].field, 'page_size');
      }
      const small = await app.request('GET', '/v4/networking/vlans?page_size=25');
      assert.equal(small.body.data.length, 3);

      assert.equal((await app.request('DELETE', `/v4/node/instances/${a.id}/configs/${configA}`)).status, 200);
      assert.deepEqual(summary((await app.request('GET', '/v4/networking/vlans')).body), [
        ['backend', 'us-east', [b.id]],
        ['backend', 'us-central', [c.id]],
      ]);
      assert.equal((await app.request('DELETE', `/v4/node/instances/${c.id}`)).status, 200);
      const last = (await app.request('GET', '/v4/networking/vlans')).body;
      assert.deepEqual(summary(last), [['backend', 'us-east', [b.id]]]);
      assert.equal(last.results, 1);
    });

    test('a restricted user sees the VLANs of nodes it holds a grant on, with only those nodes', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const seen = await createEmptyNode(app);
      const hidden = await createEmptyNode(app);
      await vlanConfig(app, seen.id, ['shared']);
      await vlanConfig(app, hidden.id, ['shared', 'secret']);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grant = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { node: [{ id: seen.id, permissions: 'read_only' }] },
      });
      assert.equal(grant.status, 200);
      const res = await app.request('GET', '/v4/networking/vlans', { token: bob.token });
      assert.equal(res.status, 200);
      assert.deepEqual(summary(res.body), [['shared', 'us-east', [seen.id]]]);
      assert.deepEqual(summary((await app.request('GET', '/v4/networking/vlans')).body), [
        ['shared', 'us-east', [seen.id, hidden.id]],
        ['secret', 'us-east', [hidden.id]],
      ]);
    });
  });
}
