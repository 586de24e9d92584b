import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordStackScriptDeployment } from '../../src/domain/stackscripts/stackscript-deploy.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createScript, filterHeader, idsOf } from './helpers.ts';

/** Two accounts, each with a private and a public script; mine (admin's) first. */
async function twoAccounts(app: TestApp) {
  const me = await admin(app);
  const other = await newAccount(app);
  const myPrivate = await createScript(app, me, { label: 'my-private', description: 'Sets up nginx', rev_note: 'v1' });
  const myPublic = await createScript(app, me, { label: 'my-public', is_public: true, description: 'Sets up MySQL' });
  const theirPrivate = await createScript(app, other, { label: 'their-private' });
  const theirPublic = await createScript(app, other, { label: 'their-public', is_public: true, rev_note: 'v2' });
  return { me, other, myPrivate, myPublic, theirPrivate, theirPublic };
}

for (const dialect of DIALECTS) {
  describe(`stackscripts list [${dialect}]`, () => {
    test("public scripts of every account plus the caller's own private ones; mine per row", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const s = await twoAccounts(app);
      const mine = await app.request('GET', '/v4/node/stackscripts', { token: s.me.token });
      assert.deepEqual(idsOf(mine), [s.myPrivate.id, s.myPublic.id, s.theirPublic.id]);
      assert.equal(mine.body.results, 3);
      assert.deepEqual(
        mine.body.data.map((d: { mine: boolean }) => d.mine),
        [true, true, false],
      );
      assert.deepEqual(mine.body.data[0], s.myPrivate);

      const theirs = await app.request('GET', '/v4/node/stackscripts', { token: s.other.token });
      assert.deepEqual(idsOf(theirs), [s.myPublic.id, s.theirPrivate.id, s.theirPublic.id]);

      const colleague = await newUser(app, s.me.accountId);
      const shared = await app.request('GET', '/v4/node/stackscripts', { token: colleague.token });
      assert.deepEqual(idsOf(shared), idsOf(mine), 'a user sees every script of its account');
    });

    test('without a token the list holds the public scripts only, none of them mine', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const s = await twoAccounts(app);
      const res = await app.request('GET', '/v4/node/stackscripts', { token: null });
      assert.deepEqual(idsOf(res), [s.myPublic.id, s.theirPublic.id]);
      for (const d of res.body.data) assert.equal(d.mine, false);
      const filtered = await app.request('GET', '/v4/node/stackscripts', { token: null, headers: filterHeader({ mine: true }) });
      assert.deepEqual(idsOf(filtered), []);
      assert.equal((await app.request('GET', '/v4/node/stackscripts', { token: 'bogus' })).status, 401);
      assert.equal((await app.request('GET', `/v4/node/stackscripts/${s.myPublic.id}`, { token: null })).status, 401);
    });

    test('X-Filter on mine, is_public, label, description, rev_note and deployments_total', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const s = await twoAccounts(app);
      const { db } = app.runtime.ctx;
      for (let i = 0; i < 3; i += 1) await recordStackScriptDeployment(db, s.theirPublic.id);
      await recordStackScriptDeployment(db, s.myPublic.id);
      const list = (filter: unknown) =>
        app.request('GET', '/v4/node/stackscripts', { token: s.me.token, headers: filterHeader(filter) });

      assert.deepEqual(idsOf(await list({ mine: true })), [s.myPrivate.id, s.myPublic.id]);
      assert.deepEqual(idsOf(await list({ mine: false })), [s.theirPublic.id]);
      assert.deepEqual(idsOf(await list({ mine: { '+neq': true } })), [s.theirPublic.id]);
      assert.deepEqual(idsOf(await list({ mine: null })), []);
      assert.deepEqual(idsOf(await list({ is_public: true })), [s.myPublic.id, s.theirPublic.id]);
      assert.deepEqual(idsOf(await list({ is_public: false })), [s.myPrivate.id]);
      assert.deepEqual(idsOf(await list({ mine: true, is_public: true })), [s.myPublic.id]);
      assert.deepEqual(idsOf(await list({ '+or': [{ mine: false }, { label: 'my-private' }] })), [
        s.myPrivate.id,
        s.theirPublic.id,
      ]);
      assert.deepEqual(idsOf(await list({ label: { '+contains': 'PUBLIC' } })), [s.myPublic.id, s.theirPublic.id]);
      assert.deepEqual(idsOf(await list({ description: { '+contains': 'mysql' } })), [s.myPublic.id]);
      assert.deepEqual(idsOf(await list({ rev_note: 'v2' })), [s.theirPublic.id]);
      assert.deepEqual(idsOf(await list({ deployments_total: { '+gte': 1 } })), [s.myPublic.id, s.theirPublic.id]);
      assert.deepEqual(idsOf(await list({ deployments_total: 0 })), [s.myPrivate.id]);
      assert.deepEqual(idsOf(await list({ '+order_by': 'deployments_total', '+order': 'desc' })), [
        s.theirPublic.id,
        s.myPublic.id,
        s.myPrivate.id,
      ]);
      assert.deepEqual(idsOf(await list({ '+order_by': 'label' })), [s.myPrivate.id, s.myPublic.id, s.theirPublic.id]);

      for (const bad of [
        { script: '#!' },
        { username: { '+gt': 5 } },
        { '+order_by': 'mine' },
        { mine: 'yes' },
        { mine: { '+gt': true } },
      ]) {
        const res = await list(bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.errors[0].field, 'X-Filter');
      }
    });

    test('pages', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const ids: number[] = [];
      for (let i = 0; i < 27; i += 1) ids.push((await createScript(app, me, { label: `script-${i}` })).id);
      const first = await app.request('GET', '/v4/node/stackscripts?page_size=25');
      assert.deepEqual(idsOf(first), ids.slice(0, 25));
      assert.equal(first.body.pages, 2);
      assert.equal(first.body.results, 27);
      const second = await app.request('GET', '/v4/node/stackscripts?page=2&page_size=25');
      assert.deepEqual(idsOf(second), ids.slice(25));
    });
  });
}
