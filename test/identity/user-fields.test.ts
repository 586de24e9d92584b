import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { up as addUserSignIns } from '../../src/db/migrations/0031-user-sign-ins.ts';
import type { MigrationDb } from '../../src/db/migrations/schema-helpers.ts';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { manualClock } from '../nodes/helpers.ts';
import { givePassword, PASSWORD, pkcePair, postSignIn, signInForCode } from '../oauth/helpers.ts';

const START = '2030-01-01T00:00:00';
const MINUTE = 60_000;

for (const dialect of DIALECTS) {
  describe(`later user, profile and account fields [${dialect}]`, () => {
    test('a new user has no password, no sign-in and no verified phone; every answer with a user shows them', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const later = { verified_phone_number: null, password_created: null, last_login: null, user_type: 'default' };
      const created = await app.request('POST', '/v4/account/users', {
        body: { username: 'fields-new', email: 'n@example.com' },
      });
      assert.equal(created.status, 200);
      assert.deepEqual(created.body, {
        username: 'fields-new',
        email: 'n@example.com',
        restricted: false,
        ssh_keys: [],
        tfa_enabled: false,
        ...later,
      });
      assert.deepEqual((await app.request('GET', '/v4/account/users/fields-new')).body, created.body);
      const listed = (await app.request('GET', '/v4/account/users')).body.data;
      assert.deepEqual(
        listed.find((u: { username: string }) => u.username === 'fields-new'),
        created.body,
      );
      // Sent back whole, the read-only fields are ignored.
      const updated = await app.request('PUT', '/v4/account/users/fields-new', {
        body: { ...created.body, email: 'm@example.com', password_created: START, user_type: 'child' },
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.headers.warning, undefined, 'nothing unknown');
      assert.deepEqual(updated.body, { ...created.body, email: 'm@example.com' });

      const profile = await app.request('GET', '/v4/profile');
      assert.equal(profile.body.uid, me.userId);
      assert.equal(profile.body.verified_phone_number, null);
      assert.equal(profile.body.user_type, 'default');
      const profileUpdated = await app.request('PUT', '/v4/profile', { body: { ...profile.body, timezone: 'UTC' } });
      assert.equal(profileUpdated.status, 200, JSON.stringify(profileUpdated.body));
      assert.deepEqual(profileUpdated.body, { ...profile.body, timezone: 'UTC' });

      const account = await app.request('GET', '/v4/account');
      assert.equal(account.body.billing_source, 'node');
      const accountUpdated = await app.request('PUT', '/v4/account', { body: { ...account.body, city: 'Lisbon' } });
      assert.equal(accountUpdated.status, 200, JSON.stringify(accountUpdated.body));
      assert.equal(accountUpdated.headers.warning, undefined, 'nothing unknown');
      assert.equal(accountUpdated.body.billing_source, 'node');
    });

    test('password_created is when the password was last set; last_login the last sign-in with the right one', async (t) => {
      const clock = manualClock();
      const app = await buildTestApp(t, { dialect, clock });
      const me = await admin(app);
      const jo = await newUser(app, me.accountId, { restricted: true });
      const view = async () => (await app.request('GET', `/v4/account/users/${jo.username}`)).body;

      clock.advance(MINUTE);
      const set = await app.request('POST', `/v4/account/users/${jo.username}/password`, { body: { password: PASSWORD } });
      assert.equal(set.status, 200);
      assert.equal((await view()).password_created, '2030-01-01T00:01:00');
      assert.equal((await view()).last_login, null, 'not signed in yet');

      clock.advance(MINUTE);
      const wrong = await postSignIn(app, { username: jo.username, password: 'not the password' });
      assert.equal(wrong.status, 401);
      assert.equal((await view()).last_login, null, 'a wrong password is no sign-in');
      const unfinished = await postSignIn(app, { username: jo.username });
      assert.equal(unfinished.status, 302, 'the right password, but the client is sent back an error (no PKCE)');
      assert.equal((await view()).last_login, null, 'no code, no sign-in');
      await signInForCode(app, { username: jo.username, challenge: pkcePair().challenge });
      assert.deepEqual((await view()).last_login, { login_datetime: '2030-01-01T00:02:00', status: 'successful' });

      // The operator's way sets it too, and the next sign-in moves last_login on.
      clock.advance(MINUTE);
      await givePassword(app, jo.username, 'another pass phrase');
      clock.advance(MINUTE);
      await signInForCode(app, { username: jo.username, password: 'another pass phrase', challenge: pkcePair().challenge });
      const after = await view();
      assert.equal(after.password_created, '2030-01-01T00:03:00');
      assert.deepEqual(after.last_login, { login_datetime: '2030-01-01T00:04:00', status: 'successful' });
      const listed = (await app.request('GET', '/v4/account/users')).body.data;
      assert.deepEqual(
        listed.find((u: { username: string }) => u.username === jo.username),
        after,
      );
    });

    test('migration 0031: a password kept from before dates from its user; no one has signed in', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const jo = await newUser(app, me.accountId);
      await givePassword(app, jo.username);
      const { db } = app.runtime.ctx;
      await db.updateTable('users').set({ created: '2029-06-01T12:00:00' }).where('id', '=', jo.userId).execute();
      await sql`alter table users drop column password_created`.execute(db);
      await sql`alter table users drop column last_login`.execute(db);
      await addUserSignIns(db as unknown as MigrationDb);
      const users = (await app.request('GET', '/v4/account/users')).body.data as {
        username: string;
        password_created: string | null;
        last_login: unknown;
      }[];
      assert.deepEqual(
        users.map((u) => [u.username, u.password_created]),
        [
          ['admin', null],
          [jo.username, '2029-06-01T12:00:00'],
        ],
      );
      assert.ok(users.every((u) => u.last_login === null));
    });
  });
}
