import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { ok } from '../operator/helpers.ts';
import { createCredential, labels } from './credential-helpers.ts';

for (const dialect of DIALECTS) {
  describe(`parallel managed credential requests [${dialect}]`, () => {
    test('two creates of one label at once, many times over: one 200 and one 400 on label each time', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (let round = 0; round < 10; round++) {
        const label = `race-${round}`;
        const replies = await Promise.all(
          [1, 2].map((i) => app.request('POST', '/v4/managed/credentials', { body: { label, password: `pass-${i}` } })),
        );
        assert.deepEqual(replies.map((r) => r.status).sort(), [200, 400], JSON.stringify(replies.map((r) => r.body)));
        assert.equal(replies.find((r) => r.status === 400)?.body.errors[0].field, 'label');
      }
      const stored = await labels(app);
      assert.deepEqual(
        stored,
        Array.from({ length: 10 }, (_, i) => `race-${i}`),
      );
    });

    test('two credentials renamed to one label at once: one 200 and one 400, and labels stay unique', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (let round = 0; round < 10; round++) {
        const a = await createCredential(app);
        const b = await createCredential(app);
        const label = `same-${round}`;
        const replies = await Promise.all(
          [a, b].map((c) => app.request('PUT', `/v4/managed/credentials/${c.id}`, { body: { label } })),
        );
        assert.deepEqual(replies.map((r) => r.status).sort(), [200, 400], JSON.stringify(replies.map((r) => r.body)));
      }
      const stored = await labels(app);
      assert.equal(new Set(stored).size, stored.length);
      assert.equal(stored.filter((l) => l.startsWith('same-')).length, 10);
    });

    test('a rename and a delete of one credential at once act one after the other', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (let round = 0; round < 10; round++) {
        const c = await createCredential(app);
        const [renamed, deleted] = await Promise.all([
          app.request('PUT', `/v4/managed/credentials/${c.id}`, { body: { label: `gone-${round}` } }),
          app.request('DELETE', `/v4/managed/credentials/${c.id}`),
        ]);
        assert.equal(deleted.status, 200);
        assert.ok([200, 404].includes(renamed.status), JSON.stringify(renamed.body));
        assert.equal((await app.request('GET', `/v4/managed/credentials/${c.id}`)).status, 404);
      }
      assert.deepEqual(await ok(app.request('GET', '/v4/managed/credentials')), { data: [], page: 1, pages: 1, results: 0 });
    });
  });
}
