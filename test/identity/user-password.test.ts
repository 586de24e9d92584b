import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { userWithPassword } from '../../src/domain/account/user.service.ts';
import { admin, newAccount, newUser, tokenFor } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { consoleTokens, PASSWORD } from '../oauth/helpers.ts';
import { eventsOf } from './helpers.ts';

/** A logger at its most talkative whose lines the test reads back. */
function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), lines };
}

for (const dialect of DIALECTS) {
  describe(`POST /account/users/{username}/password [${dialect}]`, () => {
    test('sets the password the user then signs in with; only unrestricted users with account:read_write may', async (t) => {
      const { logger, lines } = capturedLogger();
      const app = await buildTestApp(t, { dialect, logger });
      const me = await admin(app);
      const jo = await newUser(app, me.accountId, { restricted: true });
      const url = `/v4/account/users/${jo.username}/password`;

      const set = await app.request('POST', url, { body: { password: PASSWORD } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body, {});
      const tokens = await consoleTokens(app, jo.username);
      const profile = await app.request('GET', '/v4/profile', { token: tokens.access_token });
      assert.equal(profile.body.username, jo.username, 'the OAuth sign-in with the new password works');
      const [event] = await eventsOf(app, me.accountId, 'user_update');
      assert.equal(event?.entity_label, jo.username);
      assert.equal(event?.username, 'admin');

      // A new one replaces it.
      assert.equal((await app.request('POST', url, { body: { password: 'second pass phrase' } })).status, 200);
      assert.equal(await userWithPassword(app.runtime.ctx, jo.username, PASSWORD), null);
      assert.equal((await userWithPassword(app.runtime.ctx, jo.username, 'second pass phrase'))?.username, jo.username);

      // A restricted user (even with account access read_write), a read-only token, another account: refused.
      await app.request('PUT', `/v4/account/users/${jo.username}/grants`, { body: { global: { account_access: 'read_write' } } });
      const asRestricted = await app.request('POST', `/v4/account/users/admin/password`, {
        token: jo.token,
        body: { password: 'taken over now' },
      });
      assert.equal(asRestricted.status, 403);
      const readOnly = await tokenFor(app, me, { scopes: 'account:read_only' });
      const asReadOnly = await app.request('POST', url, { token: readOnly, body: { password: 'third pass phrase' } });
      assert.equal(asReadOnly.status, 403);
      const stranger = await newAccount(app);
      const elsewhere = await app.request('POST', url, { token: stranger.token, body: { password: 'third pass phrase' } });
      assert.equal(elsewhere.status, 404);
      const nobody = await app.request('POST', '/v4/account/users/nobody-at-all/password', {
        body: { password: 'third pass phrase' },
      });
      assert.equal(nobody.status, 404);
      assert.equal(await userWithPassword(app.runtime.ctx, 'admin', 'taken over now'), null);
      assert.equal((await userWithPassword(app.runtime.ctx, jo.username, 'second pass phrase'))?.username, jo.username);

      const logged = lines.join('');
      assert.ok(logged.includes('/password'), 'the requests were logged');
      for (const secret of [PASSWORD, 'second pass phrase', 'third pass phrase', 'taken over now']) {
        assert.ok(!logged.includes(secret), `the log never holds a password (${secret})`);
      }
    });

    test('a weak, blank or overlong password is refused at its field and changes nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const jo = await newUser(app, me.accountId);
      const url = `/v4/account/users/${jo.username}/password`;
      assert.equal((await app.request('POST', url, { body: { password: 'kept pass phrase' } })).status, 200);
      const before = await eventsOf(app, me.accountId, 'user_update');

      for (const body of [
        { password: 'short' },
        { password: '          ' },
        { password: 'x'.repeat(129) },
        {},
        { password: 12345678 },
      ]) {
        const res = await app.request('POST', url, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, 'password', JSON.stringify(res.body));
        assert.ok(res.body.errors[0].reason.length > 0);
        const text = JSON.stringify(res.body);
        if (typeof body.password === 'string' && body.password.trim()) assert.ok(!text.includes(body.password), 'not echoed');
      }
      const short = await app.request('POST', url, { body: { password: 'short' } });
      assert.match(short.body.errors[0].reason, /8/, `says how long: ${short.body.errors[0].reason}`);
      assert.equal((await userWithPassword(app.runtime.ctx, jo.username, 'kept pass phrase'))?.username, jo.username);
      assert.equal((await eventsOf(app, me.accountId, 'user_update')).length, before.length, 'no event for a refusal');
      assert.equal(
        (await app.request('POST', url, { body: { password: 'x'.repeat(128) } })).status,
        200,
        '128 characters is the most',
      );
    });
  });
}
