import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { nodeListExpressions } from '../../src/db/migrations/0025-node-lists.ts';
import { DIALECTS, type TestApp } from '../helpers/app.ts';
import { operatorApp } from '../operator/helpers.ts';
import { createEmptyNode } from './helpers.ts';

/** Each node's kept lists beside the same lists read afresh from entity_tags and ip_addresses. */
async function keptAndFresh(app: TestApp) {
  const { tags, addresses } = nodeListExpressions(app.dialect === 'postgres' ? 'postgres' : 'sqlite');
  const { rows } = await sql<{ id: number; tag_list: string; ipv4_list: string; tags: string; addresses: string }>`
    select id, tag_list, ipv4_list, ${sql.raw(tags)} as tags, ${sql.raw(addresses)} as addresses from nodes order by id`.execute(
    app.runtime.ctx.db,
  );
  return rows;
}

async function assertListsKept(app: TestApp) {
  const rows = await keptAndFresh(app);
  assert.ok(rows.length > 0);
  for (const row of rows) {
    assert.equal(row.tag_list, row.tags, `node ${row.id}'s tags`);
    assert.equal(row.ipv4_list, row.addresses, `node ${row.id}'s addresses`);
  }
}

async function view(app: TestApp, id: number) {
  const res = await app.request('GET', `/v4/node/instances/${id}`);
  assert.equal(res.status, 200);
  return res.body as { tags: string[]; ipv4: string[] };
}

for (const dialect of DIALECTS) {
  describe(`a node's tags and addresses kept on its row [${dialect}]`, () => {
    test('every change to tags or addresses, whichever endpoint makes it, shows in the node view at once', async (t) => {
      const app = await operatorApp(t, dialect);
      const a = await createEmptyNode(app, { tags: ['web', 'prod'] });
      const b = await createEmptyNode(app, { tags: ['dbs'] });
      assert.deepEqual((await view(app, a.id)).tags, ['prod', 'web']);
      await assertListsKept(app);

      // Tags: replaced on the node, added to several objects at once, and a tag deleted everywhere.
      assert.equal(
        (await app.request('PUT', `/v4/node/instances/${a.id}`, { body: { tags: ['zeta', 'alpha', 'prod'] } })).status,
        200,
      );
      assert.equal((await app.request('POST', '/v4/tags', { body: { label: 'shared', nodes: [a.id, b.id] } })).status, 200);
      assert.deepEqual((await view(app, a.id)).tags, ['alpha', 'prod', 'shared', 'zeta']);
      assert.deepEqual((await view(app, b.id)).tags, ['dbs', 'shared']);
      assert.equal((await app.request('DELETE', '/v4/tags/shared')).status, 200);
      assert.deepEqual((await view(app, b.id)).tags, ['dbs']);
      await assertListsKept(app);

      // Addresses: a private one added (listed after the public one), two swapped between nodes, one removed.
      const privateIp = await app.request('POST', `/v4/node/instances/${a.id}/ips`, { body: { type: 'ipv4', public: false } });
      assert.equal(privateIp.status, 200, JSON.stringify(privateIp.body));
      const [publicA, publicB] = [a.ipv4[0], b.ipv4[0]];
      assert.deepEqual((await view(app, a.id)).ipv4, [publicA, privateIp.body.address]);
      const swap = await app.request('POST', '/v4/networking/ipv4/assign', {
        body: {
          region: a.region,
          assignments: [
            { address: publicA, node_id: b.id },
            { address: publicB, node_id: a.id },
          ],
        },
      });
      assert.equal(swap.status, 200, JSON.stringify(swap.body));
      assert.deepEqual((await view(app, a.id)).ipv4, [publicB, privateIp.body.address]);
      assert.deepEqual((await view(app, b.id)).ipv4, [publicA]);
      assert.equal((await app.request('DELETE', `/v4/node/instances/${a.id}/ips/${privateIp.body.address}`)).status, 200);
      assert.deepEqual((await view(app, a.id)).ipv4, [publicB]);
      await assertListsKept(app);

      // A node deleted takes its tags and addresses with it; the others' lists are untouched.
      assert.equal((await app.request('DELETE', `/v4/node/instances/${b.id}`)).status, 200);
      const kept = await view(app, a.id);
      assert.deepEqual([kept.tags, kept.ipv4], [['alpha', 'prod', 'zeta'], [publicB]]);
      await assertListsKept(app);
    });
  });
}
