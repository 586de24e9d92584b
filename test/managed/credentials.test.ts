import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCredentialsOfAccount, liveCredentialIds } from '../../src/domain/managed/credentials/credential.service.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { ok, operatorApp } from '../operator/helpers.ts';
import { createCredential, labels } from './credential-helpers.ts';

for (const dialect of DIALECTS) {
  describe(`managed credentials [${dialect}]`, () => {
    test('create, list, view: id, label and last_decrypted, never the username or password', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('POST', '/v4/managed/credentials', {
        body: { label: 'prod-db 1.x_y', username: 'dbadmin', password: 'hunter2-hunter2' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'label', 'last_decrypted']);
      assert.equal(res.body.label, 'prod-db 1.x_y');
      assert.equal(res.body.last_decrypted, null);
      const noUsername = await createCredential(app, { username: undefined, label: 'pw-only' });

      const view = await ok(app.request('GET', `/v4/managed/credentials/${res.body.id}`));
      assert.deepEqual(view, res.body);
      const list = await ok(app.request('GET', '/v4/managed/credentials'));
      assert.deepEqual(list, { data: [res.body, noUsername], page: 1, pages: 1, results: 2 });
    });

    test('refusals name the field and store nothing: label 2..75 of letters, digits, space, - _ .; username <= 5000; password required', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [Record<string, unknown>, string][] = [
        [{ password: 'p' }, 'label'],
        [{ label: 'x', password: 'p' }, 'label'],
        [{ label: 'x'.repeat(76), password: 'p' }, 'label'],
        [{ label: 'slash/label', password: 'p' }, 'label'],
        [{ label: 'ok-label' }, 'password'],
        [{ label: 'ok-label', password: '' }, 'password'],
        [{ label: 'ok-label', password: 7 }, 'password'],
        [{ label: 'ok-label', password: 'p', username: 'u'.repeat(5001) }, 'username'],
        [{ label: 'ok-label', password: null }, 'password'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('POST', '/v4/managed/credentials', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      assert.deepEqual(await labels(app), []);
      // A null username is no username; an unknown key is ignored and named.
      const lenient = await app.request('POST', '/v4/managed/credentials', {
        body: { label: 'lenient', password: 'p', username: null, secret: 'x' },
      });
      assert.equal(lenient.status, 200, JSON.stringify(lenient.body));
      assert.equal(lenient.headers.warning, '299 - "ignored unknown fields: secret"');
      await app.request('DELETE', `/v4/managed/credentials/${lenient.body.id}`);
      await createCredential(app, { label: 'xy', username: 'u'.repeat(5000) });
      await createCredential(app, { label: 'z'.repeat(75), username: '' });
      assert.deepEqual(await labels(app), ['xy', 'z'.repeat(75)]);
    });

    test('a label is unique within the account, not across accounts; PUT changes the label only', async (t) => {
      const app = await operatorApp(t, dialect);
      const first = await createCredential(app, { label: 'shared', username: 'alice', password: 'first-pass' });
      const second = await createCredential(app, { label: 'other' });
      const taken = await app.request('POST', '/v4/managed/credentials', { body: { label: 'shared', password: 'p' } });
      assert.equal(taken.status, 400);
      assert.equal(taken.body.errors[0].field, 'label');
      const elsewhere = await newAccount(app);
      await createCredential(app, { label: 'shared' }, elsewhere.token);

      const rename = await app.request('PUT', `/v4/managed/credentials/${second.id}`, { body: { label: 'shared' } });
      assert.equal(rename.status, 400);
      assert.equal(rename.body.errors[0].field, 'label');
      assert.deepEqual(await ok(app.request('PUT', `/v4/managed/credentials/${first.id}`, { body: { label: 'shared' } })), first);
      assert.deepEqual(await ok(app.request('PUT', `/v4/managed/credentials/${first.id}`, { body: {} })), first);
      const renamed = await ok(app.request('PUT', `/v4/managed/credentials/${first.id}`, { body: { label: 'renamed' } }));
      assert.deepEqual(renamed, { ...first, label: 'renamed' });
      assert.deepEqual(await labels(app), ['renamed', 'other']);

      // What a client read may be sent back; a username or password is not taken here (POST …/update is for them).
      const echoed = await app.request('PUT', `/v4/managed/credentials/${first.id}`, { body: { ...renamed, label: 'echoed' } });
      assert.equal(echoed.status, 200, JSON.stringify(echoed.body));
      assert.equal(echoed.headers.warning, undefined);
      for (const field of ['password', 'username']) {
        const res = await app.request('PUT', `/v4/managed/credentials/${first.id}`, { body: { [field]: 'new' } });
        assert.equal(res.status, 200, field);
        assert.equal(res.headers.warning, `299 - "ignored unknown fields: ${field}"`);
      }
      const revealed = await ok(app.admin('POST', `/admin/managed/credentials/${first.id}/reveal`));
      assert.deepEqual([revealed.label, revealed.username, revealed.password], ['echoed', 'alice', 'first-pass']);
    });

    test('POST …/update replaces the password, and the username when given; it answers {}', async (t) => {
      const app = await operatorApp(t, dialect);
      const cred = await createCredential(app, { username: 'alice', password: 'first-pass' });
      const reveal = async () => {
        const body = await ok(app.admin('POST', `/admin/managed/credentials/${cred.id}/reveal`));
        return [body.username, body.password];
      };
      const url = `/v4/managed/credentials/${cred.id}/update`;
      assert.deepEqual(await ok(app.request('POST', url, { body: { password: 'second-pass' } })), {});
      assert.deepEqual(await reveal(), ['alice', 'second-pass']);
      assert.deepEqual(await ok(app.request('POST', url, { body: { username: 'bob', password: 'third-pass' } })), {});
      assert.deepEqual(await reveal(), ['bob', 'third-pass']);

      for (const [body, field] of [
        [{ username: 'carol' }, 'password'],
        [{ password: 'x', username: 'u'.repeat(5001) }, 'username'],
        [{ password: null, username: 'carol' }, 'password'],
      ] as const) {
        const res = await app.request('POST', url, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field);
      }
      assert.deepEqual(await reveal(), ['bob', 'third-pass'], 'refusals changed nothing');
      const relabel = await app.request('POST', url, { body: { password: 'fourth-pass', label: 'new-label' } });
      assert.equal(relabel.status, 200, JSON.stringify(relabel.body));
      assert.equal(relabel.headers.warning, '299 - "ignored unknown fields: label"');
      assert.deepEqual(await reveal(), ['bob', 'fourth-pass']);
      const view = await ok(app.request('GET', `/v4/managed/credentials/${cred.id}`));
      assert.equal(view.label, cred.label, 'the label is not changed here');
      assert.equal((await app.request('POST', '/v4/managed/credentials/999999/update', { body: { password: 'x' } })).status, 404);
    });

    test('DELETE and POST …/revoke both remove it: 404 after, and the label is free again', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createCredential(app, { label: 'alpha' });
      const b = await createCredential(app, { label: 'beta' });
      await createCredential(app, { label: 'kept' });
      assert.deepEqual(await ok(app.request('DELETE', `/v4/managed/credentials/${a.id}`)), {});
      assert.deepEqual(await ok(app.request('POST', `/v4/managed/credentials/${b.id}/revoke`)), {});
      for (const id of [a.id, b.id]) {
        assert.equal((await app.request('GET', `/v4/managed/credentials/${id}`)).status, 404);
        assert.equal((await app.request('DELETE', `/v4/managed/credentials/${id}`)).status, 404);
        assert.equal((await app.request('POST', `/v4/managed/credentials/${id}/revoke`)).status, 404);
        assert.equal((await app.request('PUT', `/v4/managed/credentials/${id}`, { body: { label: 'x1' } })).status, 404);
      }
      assert.deepEqual(await labels(app), ['kept']);
      await createCredential(app, { label: 'alpha' });
      assert.deepEqual(await labels(app), ['kept', 'alpha']);
    });

    test("another account's credential is 404 to every operation and stays as it was", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const theirs = await newAccount(app);
      const cred = await createCredential(app, { label: 'theirs' }, theirs.token);
      const id = cred.id;
      const attempts: [string, string, unknown][] = [
        ['GET', `/v4/managed/credentials/${id}`, undefined],
        ['PUT', `/v4/managed/credentials/${id}`, { label: 'mine-now' }],
        ['POST', `/v4/managed/credentials/${id}/update`, { password: 'mine-now' }],
        ['POST', `/v4/managed/credentials/${id}/revoke`, undefined],
        ['DELETE', `/v4/managed/credentials/${id}`, undefined],
      ];
      for (const [method, url, body] of attempts) {
        assert.equal((await app.request(method, url, { body })).status, 404, `${method} ${url}`);
      }
      assert.deepEqual(await labels(app), []);
      assert.deepEqual(await ok(app.request('GET', `/v4/managed/credentials/${id}`, { token: theirs.token })), cred);
    });

    test('scopes: account:read_only lists, account:read_write views and writes; restricted users get 403', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const cred = await createCredential(app);
      const reader = await newUser(app, me.accountId, { scopes: 'account:read_only' });
      const writer = await newUser(app, me.accountId, { scopes: 'account:read_write' });
      const restricted = await newUser(app, me.accountId, { restricted: true });

      assert.equal((await app.request('GET', '/v4/managed/credentials', { token: reader.token })).status, 200);
      assert.equal((await app.request('GET', '/v4/managed/credentials/sshkey', { token: reader.token })).status, 200);
      assert.equal((await app.request('GET', `/v4/managed/credentials/${cred.id}`, { token: reader.token })).status, 403);
      const refused = await app.request('POST', '/v4/managed/credentials', {
        token: reader.token,
        body: { label: 'ro', password: 'p' },
      });
      assert.equal(refused.status, 403);
      assert.equal((await app.request('GET', `/v4/managed/credentials/${cred.id}`, { token: writer.token })).status, 200);
      await createCredential(app, { label: 'by-writer' }, writer.token);
      for (const url of ['/v4/managed/credentials', '/v4/managed/credentials/sshkey', `/v4/managed/credentials/${cred.id}`]) {
        assert.equal((await app.request('GET', url, { token: restricted.token })).status, 403, url);
      }
      assert.deepEqual(await labels(app), [cred.label, 'by-writer']);
    });

    test('pages of 25..100', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (let i = 0; i < 27; i++) await createCredential(app, { label: `c${String(i).padStart(2, '0')}` });
      const second = await ok(app.request('GET', '/v4/managed/credentials?page=2&page_size=25'));
      assert.deepEqual([second.page, second.pages, second.results], [2, 2, 27]);
      assert.deepEqual(
        second.data.map((c: { label: string }) => c.label),
        ['c25', 'c26'],
      );
      assert.equal((await app.request('GET', '/v4/managed/credentials?page_size=24')).status, 400);
    });

    test('for managed services: ids are checked against the account, and deleted ones drop out', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      const me = await admin(app);
      const theirs = await newAccount(app);
      const [a, b, c] = [await createCredential(app), await createCredential(app), await createCredential(app)];
      const foreign = await createCredential(app, {}, theirs.token);
      await assertCredentialsOfAccount(db, me.accountId, [a.id, c.id, a.id]);
      await assert.rejects(assertCredentialsOfAccount(db, me.accountId, [a.id, foreign.id, 999999]), (err: Error) => {
        assert.match(err.message, new RegExp(`^credentials: .*${foreign.id}, 999999$`));
        return true;
      });
      await ok(app.request('POST', `/v4/managed/credentials/${b.id}/revoke`));
      assert.deepEqual(await liveCredentialIds(db, me.accountId, [c.id, b.id, a.id, foreign.id]), [c.id, a.id]);
    });
  });
}
