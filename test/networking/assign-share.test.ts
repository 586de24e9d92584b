import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, eventsOf } from '../nodes/helpers.ts';
import { type OperatorApp, operatorApp } from '../operator/helpers.ts';

interface NodeIps {
  ipv4: {
    public: { address: string; node_id: number }[];
    private: { address: string }[];
    shared: { address: string; node_id: number }[];
  };
}

async function ipsOf(app: TestApp, nodeId: number): Promise<NodeIps> {
  const res = await app.request('GET', `/v4/node/instances/${nodeId}/ips`);
  assert.equal(res.status, 200);
  return res.body;
}

const publics = async (app: TestApp, nodeId: number) => (await ipsOf(app, nodeId)).ipv4.public.map((a) => a.address).sort();
const privates = async (app: TestApp, nodeId: number) => (await ipsOf(app, nodeId)).ipv4.private.map((a) => a.address);
const shared = async (app: TestApp, nodeId: number) => (await ipsOf(app, nodeId)).ipv4.shared.map((a) => a.address).sort();

/** A node allowed `count` public IPv4 addresses and holding them all. */
async function nodeWithPublics(app: OperatorApp, count: number, overrides: Record<string, unknown> = {}) {
  const node = await createEmptyNode(app, overrides);
  if (count > 1) await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: count } });
  for (let i = 1; i < count; i += 1) {
    const res = await app.request('POST', `/v4/node/instances/${node.id}/ips`, { body: { type: 'ipv4', public: true } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  return { ...node, publics: await publics(app, node.id) };
}

function assign(app: TestApp, assignments: { address: string; node_id: number }[], region = 'us-east', token?: string) {
  return app.request('POST', '/v4/networking/ipv4/assign', { body: { region, assignments }, ...(token ? { token } : {}) });
}

function share(app: TestApp, nodeId: number, ips: string[], token?: string) {
  return app.request('POST', '/v4/networking/ipv4/share', { body: { node_id: nodeId, ips }, ...(token ? { token } : {}) });
}

const fields = (res: { body: { errors: { field?: string }[] } }) => res.body.errors.map((e) => e.field);

for (const dialect of DIALECTS) {
  describe(`assign and share IPv4 addresses [${dialect}]`, () => {
    test('assign swaps addresses between nodes in one request; both views and the events follow', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const a = await createEmptyNode(app);
      const b = await createEmptyNode(app);
      const [x, y] = [a.ipv4[0], b.ipv4[0]];

      const res = await assign(app, [
        { address: x, node_id: b.id },
        { address: y, node_id: a.id },
      ]);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {});
      assert.deepEqual(await publics(app, a.id), [y]);
      assert.deepEqual(await publics(app, b.id), [x]);
      assert.equal((await app.request('GET', `/v4/networking/ips/${x}`)).body.node_id, b.id);
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${a.id}`)).body.ipv4, [y]);
      const list = await app.request('GET', '/v4/networking/ips');
      assert.equal(list.body.data.find((ip: { address: string }) => ip.address === y).node_id, a.id);

      const added = await eventsOf(app, me.accountId, 'node_addip');
      const removed = await eventsOf(app, me.accountId, 'node_deleteip');
      assert.deepEqual(
        added.map((e) => [e.entity_id, e.message]),
        [
          [b.id, x],
          [a.id, y],
        ],
      );
      assert.deepEqual(
        removed.map((e) => [e.entity_id, e.message]),
        [
          [a.id, x],
          [b.id, y],
        ],
      );
    });

    test('a move that would leave a node without a public address, or with two private ones, moves nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const a = await nodeWithPublics(app, 2, { private_ip: true });
      const b = await createEmptyNode(app, { private_ip: true });
      const aPrivate = (await privates(app, a.id))[0] as string;

      const all = await assign(app, [
        { address: a.publics[0] as string, node_id: b.id },
        { address: a.publics[1] as string, node_id: b.id },
      ]);
      assert.equal(all.status, 400);
      assert.deepEqual(fields(all), ['assignments']);
      assert.match(all.body.errors[0].reason, new RegExp(`node ${a.id} would have no public IPv4`));
      const twoPrivate = await assign(app, [
        { address: a.publics[0] as string, node_id: b.id },
        { address: aPrivate, node_id: b.id },
      ]);
      assert.equal(twoPrivate.status, 400);
      assert.match(twoPrivate.body.errors[0].reason, new RegExp(`node ${b.id} would have more than one private`));
      assert.deepEqual(await publics(app, a.id), a.publics, 'nothing moved');
      assert.deepEqual(await publics(app, b.id), [b.ipv4[0]]);
      assert.deepEqual(await privates(app, a.id), [aPrivate]);
      assert.equal((await eventsOf(app, me.accountId, 'node_addip')).length, 1, 'only the allocation was recorded');

      const one = await assign(app, [{ address: a.publics[1] as string, node_id: b.id }]);
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.deepEqual(await publics(app, a.id), [a.publics[0]]);
      assert.equal((await publics(app, b.id)).length, 2);
      const again = await assign(app, [{ address: a.publics[1] as string, node_id: b.id }]);
      assert.equal(again.status, 200, 'assigning an address to its holder is a no-op');
      assert.equal((await eventsOf(app, me.accountId, 'node_addip')).length, 2);

      // A private address may move to a node without one, swapping with nothing.
      const c = await createEmptyNode(app);
      const movePrivate = await assign(app, [{ address: aPrivate, node_id: c.id }]);
      assert.equal(movePrivate.status, 200, JSON.stringify(movePrivate.body));
      assert.deepEqual(await privates(app, c.id), [aPrivate]);
      assert.deepEqual(await privates(app, a.id), []);
    });

    test('assign refuses bad input, naming the field, and changes nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await nodeWithPublics(app, 2);
      const b = await createEmptyNode(app);
      const west = await createEmptyNode(app, { region: 'us-central' });
      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, other.token);
      const x = a.publics[1] as string;
      const cases: [unknown, string[]][] = [
        [{ region: 'us-east' }, ['assignments']],
        [{ assignments: [{ address: x, node_id: b.id }] }, ['region']],
        [{ region: 'us-east', assignments: [] }, ['assignments']],
        [{ region: 'nowhere', assignments: [{ address: x, node_id: b.id }] }, ['region']],
        [{ region: 'us-east', assignments: [{ address: 'not-an-ip', node_id: b.id }] }, ['assignments[0].address']],
        [
          { region: 'us-east', assignments: [{ address: a.ipv6.replace('/128', ''), node_id: b.id }] },
          ['assignments[0].address'],
        ],
        [
          {
            region: 'us-east',
            assignments: [
              { address: x, node_id: b.id },
              { address: x, node_id: a.id },
            ],
          },
          ['assignments[1].address'],
        ],
        [{ region: 'us-east', assignments: [{ address: theirs.ipv4[0], node_id: b.id }] }, ['assignments[0].address']],
        [{ region: 'us-east', assignments: [{ address: west.ipv4[0], node_id: b.id }] }, ['assignments[0].address']],
        [{ region: 'us-east', assignments: [{ address: x, node_id: west.id }] }, ['assignments[0].node_id']],
        [{ region: 'us-east', assignments: [{ address: x, node_id: theirs.id }] }, ['assignments[0].node_id']],
        [{ region: 'us-east', assignments: [{ address: x, node_id: 999999 }] }, ['assignments[0].node_id']],
        [{ region: 'us-east', assignments: [{ address: x }] }, ['assignments[0].node_id']],
      ];
      for (const [body, expected] of cases) {
        const res = await app.request('POST', '/v4/networking/ipv4/assign', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(fields(res), expected, JSON.stringify(res.body));
      }
      assert.deepEqual(await publics(app, a.id), a.publics, 'nothing moved');
      assert.deepEqual(await publics(app, b.id), [b.ipv4[0]]);
      const theirsAfter = await app.request('GET', `/v4/node/instances/${theirs.id}/ips`, { token: other.token });
      assert.deepEqual(
        theirsAfter.body.ipv4.public.map((ip: { address: string }) => ip.address),
        [theirs.ipv4[0]],
      );
    });

    test('assign needs read_write on every node giving and taking; a read_only holder is forbidden', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const a = await nodeWithPublics(app, 2);
      const b = await createEmptyNode(app);
      const hidden = await createEmptyNode(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grant = (aPerm: string, bPerm: string) =>
        app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
          body: {
            node: [
              { id: a.id, permissions: aPerm },
              { id: b.id, permissions: bPerm },
            ],
          },
        });
      assert.equal((await grant('read_only', 'read_write')).status, 200);
      const x = a.publics[1] as string;
      const readOnlyHolder = await assign(app, [{ address: x, node_id: b.id }], 'us-east', bob.token);
      assert.equal(readOnlyHolder.status, 403);
      assert.equal((await grant('read_write', 'read_only')).status, 200);
      const readOnlyTarget = await assign(app, [{ address: x, node_id: b.id }], 'us-east', bob.token);
      assert.equal(readOnlyTarget.status, 403);
      const unseenAddress = await assign(app, [{ address: hidden.ipv4[0], node_id: a.id }], 'us-east', bob.token);
      assert.equal(unseenAddress.status, 400, 'an address of a node without a grant is not one of yours');
      assert.deepEqual(fields(unseenAddress), ['assignments[0].address']);
      const unseenNode = await assign(app, [{ address: x, node_id: hidden.id }], 'us-east', bob.token);
      assert.deepEqual([unseenNode.status, fields(unseenNode)], [400, ['assignments[0].node_id']]);
      assert.deepEqual(await publics(app, a.id), a.publics, 'nothing moved');

      assert.equal((await grant('read_write', 'read_write')).status, 200);
      const ok = await assign(app, [{ address: x, node_id: b.id }], 'us-east', bob.token);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.ok((await publics(app, b.id)).includes(x));
    });

    test('share: the node lists the shared addresses, the holder keeps them; a new list replaces the old one', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await nodeWithPublics(app, 2);
      const b = await createEmptyNode(app);
      const c = await createEmptyNode(app);

      const res = await share(app, b.id, [...a.publics, c.ipv4[0]]);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {});
      assert.deepEqual(await shared(app, b.id), [...a.publics, c.ipv4[0]].sort());
      const view = await ipsOf(app, b.id);
      assert.equal(view.ipv4.shared.find((ip) => ip.address === c.ipv4[0])?.node_id, c.id, 'a shared address names its holder');
      assert.deepEqual(await publics(app, a.id), a.publics, 'the holder keeps its addresses');
      assert.deepEqual(await publics(app, b.id), [b.ipv4[0]]);
      assert.deepEqual(await shared(app, a.id), []);

      assert.equal((await share(app, b.id, [a.publics[0] as string])).status, 200);
      assert.deepEqual(await shared(app, b.id), [a.publics[0]]);
      assert.equal((await share(app, c.id, [a.publics[0] as string])).status, 200, 'an address may be shared with several nodes');
      assert.deepEqual(await shared(app, c.id), [a.publics[0]]);
      assert.equal((await share(app, b.id, [])).status, 200);
      assert.deepEqual(await shared(app, b.id), []);
      assert.deepEqual(await shared(app, c.id), [a.publics[0]], "another node's shares stay");

      // The spellings of later revisions that today's clients call are the same operations.
      const later = await app.request('POST', '/v4/networking/ips/share', { body: { node_id: b.id, ips: [c.ipv4[0]] } });
      assert.equal(later.status, 200, JSON.stringify(later.body));
      assert.deepEqual(await shared(app, b.id), [c.ipv4[0]]);
      const moved = await app.request('POST', '/v4/networking/ips/assign', {
        body: { region: 'us-east', assignments: [{ address: a.publics[1], node_id: b.id }] },
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual((await publics(app, b.id)).sort(), [b.ipv4[0], a.publics[1]].sort());
      const bad = await app.request('POST', '/v4/networking/ips/share', { body: { node_id: b.id } });
      assert.deepEqual([bad.status, fields(bad)], [400, ['ips']]);
    });

    test('share refuses private, own, foreign, other-region and unknown addresses, and changes nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await createEmptyNode(app, { private_ip: true });
      const b = await createEmptyNode(app);
      const west = await createEmptyNode(app, { region: 'us-central' });
      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, other.token);
      assert.equal((await share(app, b.id, [a.ipv4[0]])).status, 200);
      const aPrivate = (await privates(app, a.id))[0] as string;
      const cases: [unknown, string[]][] = [
        [{ node_id: b.id }, ['ips']],
        [{ ips: [a.ipv4[0]] }, ['node_id']],
        [{ node_id: b.id, ips: [aPrivate] }, ['ips[0]']],
        [{ node_id: b.id, ips: [b.ipv4[0]] }, ['ips[0]']],
        [{ node_id: b.id, ips: [theirs.ipv4[0]] }, ['ips[0]']],
        [{ node_id: b.id, ips: [west.ipv4[0]] }, ['ips[0]']],
        [{ node_id: b.id, ips: ['203.0.113.250'] }, ['ips[0]']],
        [{ node_id: b.id, ips: ['nope', a.ipv4[0], a.ipv4[0]] }, ['ips[0]', 'ips[2]']],
        [{ node_id: b.id, ips: [a.ipv6.replace('/128', '')] }, ['ips[0]']],
        [{ node_id: theirs.id, ips: [] }, ['node_id']],
      ];
      for (const [body, expected] of cases) {
        const res = await app.request('POST', '/v4/networking/ipv4/share', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(fields(res), expected, JSON.stringify(res.body));
      }
      assert.deepEqual(await shared(app, b.id), [a.ipv4[0]], 'the earlier share stands');
    });

    test('a share ends when its address moves, when its holder is deleted, and when the sharing node is deleted', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await nodeWithPublics(app, 2);
      const b = await createEmptyNode(app);
      const c = await createEmptyNode(app);
      const d = await createEmptyNode(app);
      assert.equal((await share(app, b.id, [...a.publics, c.ipv4[0]])).status, 200);
      assert.equal((await share(app, d.id, [c.ipv4[0]])).status, 200);

      assert.equal((await assign(app, [{ address: a.publics[1] as string, node_id: b.id }])).status, 200);
      assert.deepEqual(await shared(app, b.id), [a.publics[0], c.ipv4[0]].sort(), 'the moved address is no longer shared');
      assert.ok((await publics(app, b.id)).includes(a.publics[1] as string));

      assert.equal((await app.request('DELETE', `/v4/node/instances/${c.id}`)).status, 200);
      assert.deepEqual(await shared(app, b.id), [a.publics[0]], "the deleted holder's address is no longer shared");
      assert.deepEqual(await shared(app, d.id), []);

      assert.equal((await app.request('DELETE', `/v4/node/instances/${b.id}`)).status, 200);
      const rows = await app.runtime.ctx.db.selectFrom('ip_shares').selectAll().execute();
      assert.deepEqual(rows, [], 'no share outlives its nodes');
    });

    test('two assigns taking the last spare address from one node at once: exactly one wins', async (t) => {
      const app = await operatorApp(t, dialect);
      for (let round = 0; round < 5; round += 1) {
        const a = await nodeWithPublics(app, 3);
        const targets = await Promise.all([createEmptyNode(app), createEmptyNode(app), createEmptyNode(app)]);
        const results = await Promise.all(
          targets.map((target, i) => assign(app, [{ address: a.publics[i] as string, node_id: target.id }])),
        );
        const won = results.filter((r) => r.status === 200).length;
        assert.deepEqual(
          results.map((r) => r.status).sort(),
          [200, 200, 400],
          `round ${round}: ${JSON.stringify(results.map((r) => r.body))}`,
        );
        assert.equal((await publics(app, a.id)).length, 3 - won, 'the holder keeps one');
        const held = (await Promise.all(targets.map((n) => publics(app, n.id)))).flat();
        assert.equal(held.length, 3 + won);
      }
    });

    test('twenty concurrent assigns of one address to different nodes leave it on exactly one node', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await nodeWithPublics(app, 2);
      const x = a.publics[1] as string;
      const targets = [];
      for (let i = 0; i < 20; i += 1) targets.push(await createEmptyNode(app));
      const shareHolder = targets[0];
      assert.ok(shareHolder);
      const results = await Promise.all([
        ...targets.map((n) => assign(app, [{ address: x, node_id: n.id }])),
        share(app, shareHolder.id, [x]),
      ]);
      assert.ok(
        results.every((r) => r.status === 200 || r.status === 400),
        JSON.stringify(results.map((r) => r.body)),
      );
      const holders = [];
      for (const n of [a, ...targets]) {
        const mine = await publics(app, n.id);
        assert.ok(mine.length >= 1, `node ${n.id} keeps a public address`);
        if (mine.includes(x)) holders.push(n.id);
        assert.ok(!(await shared(app, n.id)).includes(x) || !mine.includes(x), 'no node shares its own address');
      }
      assert.equal(holders.length, 1);
      assert.equal((await app.request('GET', `/v4/networking/ips/${x}`)).body.node_id, holders[0]);
    });
  });
}
