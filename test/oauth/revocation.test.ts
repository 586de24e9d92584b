import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { CONSOLE, consoleTokens, form, givePassword, type Tokens, tokenRequest } from './helpers.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function revoke(app: TestApp, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  return app.request('POST', '/oauth/revoke', { token: null, headers: { ...FORM, ...headers }, body: form(fields) });
}

async function works(app: TestApp, tokens: Tokens): Promise<{ access: number; refresh: number }> {
  const access = (await app.request('GET', '/v4/profile', { token: tokens.access_token })).status;
  const refresh = (
    await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CONSOLE.clientId })
  ).status;
  return { access, refresh };
}

for (const dialect of DIALECTS) {
  describe(`token revocation, RFC 7009 [${dialect}]`, () => {
    test('revoking the refresh token ends the sign-in: its access token at once, and no refresh; another sign-in stays', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const user = await newAccount(app);
      await givePassword(app, user.username);
      const one = await consoleTokens(app, user.username);
      const two = await consoleTokens(app, user.username);

      const res = await revoke(app, { token: one.refresh_token, token_type_hint: 'refresh_token', client_id: CONSOLE.clientId });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.deepEqual(await works(app, one), { access: 401, refresh: 400 });
      assert.equal((await app.request('GET', '/v4/profile', { token: two.access_token })).status, 200, 'the other sign-in stays');
    });

    test('revoking the access token, with or without a hint, ends its grant too', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const user = await newAccount(app);
      await givePassword(app, user.username);
      for (const hint of ['access_token', undefined, 'refresh_token']) {
        const tokens = await consoleTokens(app, user.username);
        const res = await revoke(app, { token: tokens.access_token, token_type_hint: hint, client_id: CONSOLE.clientId });
        assert.equal(res.status, 200, `${hint}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(await works(app, tokens), { access: 401, refresh: 400 }, String(hint));
      }
    });

    test('a token unknown, already revoked, personal, or of another client is answered 200 and nothing changes', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const user = await newAccount(app);
      await givePassword(app, user.username);
      const tokens = await consoleTokens(app, user.username);
      const other = await app.request('POST', '/v4/account/oauth-clients', {
        body: { label: 'Other tool', redirect_uri: 'https://other.example/cb', public: true },
      });
      assert.equal(other.status, 200, JSON.stringify(other.body));

      for (const token of ['0'.repeat(64), 'not a token', user.token]) {
        assert.equal((await revoke(app, { token, client_id: CONSOLE.clientId })).status, 200);
      }
      assert.equal(
        (await app.request('GET', '/v4/profile', { token: user.token })).status,
        200,
        "a personal token is not the client's",
      );
      assert.equal((await revoke(app, { token: tokens.refresh_token, client_id: other.body.id })).status, 200);
      assert.deepEqual(
        await works(app, tokens),
        { access: 200, refresh: 200 },
        "another client cannot end the console's sign-in",
      );
    });

    test('the client must authenticate: unknown client, missing token, a public client with a secret, a wrong Basic secret', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const user = await newAccount(app);
      await givePassword(app, user.username);
      const tokens = await consoleTokens(app, user.username);
      const confidential = await app.request('POST', '/v4/account/oauth-clients', {
        body: { label: 'Server app', redirect_uri: 'https://server.example/cb' },
      });
      const basic = (id: string, secret: string) => ({
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      });

      const cases: [string, Awaited<ReturnType<typeof revoke>>, number, string][] = [
        ['no client', await revoke(app, { token: tokens.refresh_token }), 400, 'invalid_client'],
        ['unknown client', await revoke(app, { token: tokens.refresh_token, client_id: 'nobody' }), 400, 'invalid_client'],
        [
          'a public client with a secret',
          await revoke(app, { token: tokens.refresh_token, client_id: CONSOLE.clientId, client_secret: 'x' }),
          400,
          'invalid_client',
        ],
        ['no token', await revoke(app, { client_id: CONSOLE.clientId }), 400, 'invalid_request'],
        [
          'a repeated token',
          await app.request('POST', '/oauth/revoke', {
            token: null,
            headers: FORM,
            body: `client_id=${CONSOLE.clientId}&token=a&token=b`,
          }),
          400,
          'invalid_request',
        ],
        [
          'a wrong Basic secret',
          await revoke(app, { token: tokens.refresh_token }, basic(confidential.body.id, 'f'.repeat(64))),
          401,
          'invalid_client',
        ],
      ];
      for (const [what, res, status, error] of cases) {
        assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, error, what);
      }
      assert.match(String(cases[5]?.[1].headers['www-authenticate']), /^Basic /);
      assert.deepEqual(await works(app, tokens), { access: 200, refresh: 200 }, 'nothing was revoked');

      const good = await revoke(app, { token: 'unknown' }, basic(confidential.body.id, confidential.body.secret));
      assert.equal(good.status, 200, 'a confidential client with its secret, by Basic');
    });
  });
}
