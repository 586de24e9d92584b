import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTags } from '../../src/domain/tags/tag.service.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { admin, createEmptyNode, makeTag, tagLabels, tagsOn } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`parallel tag requests [${dialect}]`, () => {
    test('deleting a tag while objects are tagged with it: afterwards the tag exists exactly when something carries it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push((await createEmptyNode(app)).id);
      const [first, second, ...others] = ids;
      for (let round = 0; round < 30; round++) {
        const label = `race-${round}`;
        await makeTag(app, { label, nodes: [first] });
        const replies = await Promise.all([
          app.request('POST', '/v4/tags', { body: { label, nodes: [second] } }),
          ...others.slice(0, 2).map((id) => app.request('PUT', `/v4/node/instances/${id}`, { body: { tags: [label] } })),
          app.request('DELETE', `/v4/tags/${label}`),
          ...others.slice(2).map((id) => app.request('PUT', `/v4/node/instances/${id}`, { body: { tags: [label] } })),
        ]);
        assert.deepEqual(
          replies.map((r) => r.status),
          Array(6).fill(200),
          JSON.stringify(replies.map((r) => r.body)),
        );
        const carriers = [];
        for (const id of ids) if ((await tagsOn(app, `/v4/node/instances/${id}`)).includes(label)) carriers.push(id);
        const listed = (await tagLabels(app)).includes(label);
        assert.equal(listed, carriers.length > 0, `round ${round}: listed ${listed}, carried by ${carriers}`);
      }
    });

    test('deleting a tag while nodes are created with it: afterwards the tag exists exactly when something carries it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const create = (label: string, tags: string[]) =>
        app.request('POST', '/v4/node/instances', { body: { region: 'us-east', type: 'g6-nanode-1', label, tags } });
      for (let round = 0; round < 15; round++) {
        const label = `made-${round}`;
        await makeTag(app, { label, nodes: [] });
        const replies = await Promise.all([
          create(`first-${round}`, [label, `new-${round}`]),
          app.request('DELETE', `/v4/tags/${label}`),
          create(`second-${round}`, [label]),
        ]);
        assert.deepEqual(
          replies.map((r) => r.status),
          [200, 200, 200],
          JSON.stringify(replies.map((r) => r.body)),
        );
        const [first, , second] = replies;
        assert.deepEqual(first?.body.tags, [label, `new-${round}`].sort(), 'a new node carries what it was created with');
        assert.deepEqual(second?.body.tags, [label]);
        const carried = [];
        for (const node of [first, second]) {
          if ((await tagsOn(app, `/v4/node/instances/${node?.body.id}`)).includes(label)) carried.push(node?.body.id);
        }
        const listed = await tagLabels(app);
        assert.equal(listed.includes(label), carried.length > 0, `round ${round}: listed, carried by ${carried}`);
        assert.ok(listed.includes(`new-${round}`), 'a tag made with a node is listed');
      }
    });

    test('the same tag made with different nodes at once: every node carries it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push((await createEmptyNode(app)).id);
      // Each names its node and the next, so that every node is locked by two of them.
      const replies = await Promise.all(
        ids.map((id, i) =>
          app.request('POST', '/v4/tags', { body: { label: 'together', nodes: [id, ids[(i + 1) % ids.length]] } }),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.status),
        Array(6).fill(200),
      );
      for (const id of ids) assert.deepEqual(await tagsOn(app, `/v4/node/instances/${id}`), ['together']);
    });

    if (dialect === 'postgres') {
      test('objects tagged with an existing tag in two open transactions: neither waits for the other', async (t) => {
        const app = await buildTestApp(t, { dialect });
        const { ctx } = app.runtime;
        const me = await admin(app);
        const a = await createEmptyNode(app);
        const b = await createEmptyNode(app);
        // Both ways a tag is put on: on an object that may carry others, and on one made in the transaction.
        for (const fresh of [false, true]) {
          const label = fresh ? 'shared-new' : 'shared';
          await makeTag(app, { label, nodes: [] });
          const tag = (db: typeof ctx.db, nodeId: number) =>
            setTags(db, me.accountId, 'node', nodeId, [label], '2026-01-01T00:00:00', 100, { fresh });
          await ctx.db.transaction().execute(async (open) => {
            await tag(open, a.id);
            const other = ctx.db.transaction().execute((trx) => tag(trx, b.id));
            const waited = new Promise<void>((_, reject) => setTimeout(() => reject(new Error('it waited')), 5000));
            await Promise.race([other, waited]);
          });
          for (const id of [a.id, b.id]) assert.deepEqual(await tagsOn(app, `/v4/node/instances/${id}`), [label]);
          if (!fresh) for (const id of [a.id, b.id]) await app.request('PUT', `/v4/node/instances/${id}`, { body: { tags: [] } });
        }
      });
    }
  });
}
