import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode } from '../nodes/helpers.ts';

const DEFAULTS = { access: true, user: 'root', ip: 'any', port: 22 };

function put(app: TestApp, nodeId: number, ssh: unknown, token?: string) {
  return app.request('PUT', `/v4/managed/node-settings/${nodeId}`, { body: { ssh }, ...(token ? { token } : {}) });
}

/** The full form of an IPv6 address: eight groups of four hex digits. */
function expanded(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

for (const dialect of DIALECTS) {
  describe(`managed node settings [${dialect}]`, () => {
    test("one entry per node, with the defaults until changed; the node's label and group", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createEmptyNode(app, { label: 'settings-a', group: 'web' });
      const b = await createEmptyNode(app, { label: 'settings-b' });
      const list = await app.request('GET', '/v4/managed/node-settings');
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assert.deepEqual(list.body, {
        data: [
          { id: a.id, label: 'settings-a', group: 'web', ssh: DEFAULTS },
          { id: b.id, label: 'settings-b', group: '', ssh: DEFAULTS },
        ],
        page: 1,
        pages: 1,
        results: 2,
      });
      assert.deepEqual((await app.request('GET', `/v4/managed/node-settings/${b.id}`)).body, list.body.data[1]);

      const renamed = await app.request('PUT', `/v4/node/instances/${b.id}`, { body: { label: 'settings-renamed' } });
      assert.equal(renamed.status, 200);
      assert.equal((await app.request('GET', `/v4/managed/node-settings/${b.id}`)).body.label, 'settings-renamed');

      assert.equal((await app.request('DELETE', `/v4/node/instances/${a.id}`)).status, 200);
      const after = await app.request('GET', '/v4/managed/node-settings');
      assert.deepEqual(
        after.body.data.map((s: { id: number }) => s.id),
        [b.id],
      );
      assert.equal((await app.request('GET', `/v4/managed/node-settings/${a.id}`)).status, 404);
      assert.equal((await app.request('GET', '/v4/managed/node-settings/999999')).status, 404);
    });

    test('PUT changes the SSH fields it names; ip is any or an address of that node; port 1..65535', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const other = await createEmptyNode(app);
      const url = `/v4/managed/node-settings/${node.id}`;

      const port = await put(app, node.id, { port: 2222, user: 'ops' });
      assert.equal(port.status, 200, JSON.stringify(port.body));
      assert.deepEqual(port.body.ssh, { ...DEFAULTS, port: 2222, user: 'ops' });
      const v4 = await put(app, node.id, { ip: node.ipv4[0], access: false });
      assert.deepEqual(v4.body.ssh, { access: false, user: 'ops', ip: node.ipv4[0], port: 2222 });
      const slaac = node.ipv6.replace('/128', '');
      const v6 = await put(app, node.id, { ip: expanded(slaac) });
      assert.equal(v6.status, 200, JSON.stringify(v6.body));
      assert.equal(v6.body.ssh.ip, slaac, 'kept as the node shows it');
      assert.deepEqual((await app.request('GET', url)).body, v6.body);
      // What the GET answers may be sent back whole.
      const echoed = await app.request('PUT', url, { body: { ...v6.body, ssh: { ...v6.body.ssh, port: 22 } } });
      assert.equal(echoed.status, 200, JSON.stringify(echoed.body));
      assert.equal(echoed.body.ssh.port, 22);

      const refusals: [unknown, string][] = [
        [{ port: 0 }, 'ssh.port'],
        [{ port: 65536 }, 'ssh.port'],
        [{ port: '22' }, 'ssh.port'],
        [{ ip: other.ipv4[0] }, 'ssh.ip'],
        [{ ip: '192.0.2.99' }, 'ssh.ip'],
        [{ ip: 'localhost' }, 'ssh.ip'],
        [{ ip: 'ANY' }, 'ssh.ip'],
        [{ user: 'u'.repeat(33) }, 'ssh.user'],
        [{ access: 'yes' }, 'ssh.access'],
        [{ host: 'x', port: 0 }, 'ssh.port'],
      ];
      for (const [ssh, field] of refusals) {
        const res = await put(app, node.id, ssh);
        assert.equal(res.status, 400, `${JSON.stringify(ssh)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      assert.deepEqual((await app.request('GET', url)).body, echoed.body, 'nothing changed');
      const host = await put(app, node.id, { host: 'x' });
      assert.equal(host.status, 200, JSON.stringify(host.body));
      assert.equal(host.headers.warning, '299 - "ignored unknown fields: ssh.host"');
      assert.deepEqual(host.body, echoed.body, 'an ignored key changes nothing');
      assert.deepEqual((await app.request('GET', `/v4/managed/node-settings/${other.id}`)).body.ssh, DEFAULTS);

      const back = await put(app, node.id, { ip: 'any', port: 65535, user: '' });
      assert.deepEqual(back.body.ssh, { access: false, user: '', ip: 'any', port: 65535 });
    });

    test("unrestricted users only, as every managed operation; another account's nodes are not found", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const seen = await createEmptyNode(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grant = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { node: [{ id: seen.id, permissions: 'read_write' }] },
      });
      assert.equal(grant.status, 200);
      assert.equal((await app.request('GET', '/v4/managed/node-settings', { token: bob.token })).status, 403);
      assert.equal((await app.request('GET', `/v4/managed/node-settings/${seen.id}`, { token: bob.token })).status, 403);
      assert.equal((await put(app, seen.id, { port: 2200 }, bob.token)).status, 403, 'a grant on the node is not enough');
      assert.equal((await put(app, seen.id, { port: 2200 })).status, 200);

      const stranger = await newAccount(app);
      assert.equal((await app.request('GET', `/v4/managed/node-settings/${seen.id}`, { token: stranger.token })).status, 404);
      assert.equal((await put(app, seen.id, { port: 2201 }, stranger.token)).status, 404);
      assert.equal((await app.request('GET', '/v4/managed/node-settings', { token: stranger.token })).body.results, 0);
    });

    test('parallel changes of different fields of one node all hold', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const replies = await Promise.all([
        put(app, node.id, { port: 2022 }),
        put(app, node.id, { user: 'admin' }),
        put(app, node.id, { access: false }),
        put(app, node.id, { ip: node.ipv4[0] }),
      ]);
      assert.deepEqual(
        replies.map((r) => r.status),
        [200, 200, 200, 200],
      );
      const now = await app.request('GET', `/v4/managed/node-settings/${node.id}`);
      assert.deepEqual(now.body.ssh, { access: false, user: 'admin', ip: node.ipv4[0], port: 2022 });
    });
  });
}
