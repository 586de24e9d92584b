import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import {
  authorizeFields,
  CONSOLE,
  consoleTokens,
  form,
  givePassword,
  PASSWORD,
  pkcePair,
  postSignIn,
  redirectQuery,
  signInForCode,
  type Tokens,
  tokenRequest,
} from './helpers.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function exchange(app: TestApp, code: string, verifier: string) {
  return tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    client_id: CONSOLE.clientId,
    redirect_uri: CONSOLE.redirectUri,
    code_verifier: verifier,
  });
}

function refresh(app: TestApp, refreshToken: string) {
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CONSOLE.clientId });
}

async function refreshed(app: TestApp, tokens: Tokens): Promise<Tokens> {
  const res = await refresh(app, tokens.refresh_token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Whether an access token still opens /v4 (200) or not any more (401). */
async function status(app: TestApp, tokens: Tokens): Promise<number> {
  return (await app.request('GET', '/v4/profile', { token: tokens.access_token })).status;
}

for (const dialect of DIALECTS) {
  describe(`OAuth hygiene (RFC 6749, 7636, 9700) [${dialect}]`, () => {
    test('a code used again revokes every token issued from it, refreshed ones included; other grants stay', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const other = await consoleTokens(app, owner.username);
      const { verifier, challenge } = pkcePair();
      const code = await signInForCode(app, { username: owner.username, challenge });
      const first = await exchange(app, code, verifier);
      assert.equal(first.status, 200);
      const next = await refreshed(app, first.body);
      assert.equal(await status(app, first.body), 200);

      const replay = await exchange(app, code, verifier);
      assert.equal(replay.status, 400);
      assert.deepEqual(replay.body, {
        error: 'invalid_grant',
        error_description: 'Invalid grant: authorization code is invalid',
      });
      assert.equal(await status(app, first.body), 401, 'the access token issued for the code');
      assert.equal(await status(app, next), 401, 'the one refreshed from it');
      const afterwards = await refresh(app, next.refresh_token);
      assert.equal(afterwards.status, 400);
      assert.equal(afterwards.body.error, 'invalid_grant');
      assert.equal((await exchange(app, code, verifier)).status, 400, 'and again');

      assert.equal(await status(app, other), 200, 'another sign-in of the same user and client');
      assert.equal((await refresh(app, other.refresh_token)).status, 200);
    });

    test('a rotated refresh token used again revokes its whole family; other grants stay', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const other = await consoleTokens(app, owner.username);
      const first = await consoleTokens(app, owner.username);
      const second = await refreshed(app, first);
      const third = await refreshed(app, second);
      assert.equal(await status(app, third), 200);

      const replay = await refresh(app, first.refresh_token);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, 'invalid_grant');
      for (const [name, tokens] of [
        ['first', first],
        ['second', second],
        ['third', third],
      ] as const) {
        assert.equal(await status(app, tokens), 401, `${name} access token`);
      }
      const latest = await refresh(app, third.refresh_token);
      assert.equal(latest.status, 400, 'the newest refresh token of the family too');
      assert.equal(latest.body.error, 'invalid_grant');

      assert.equal(await status(app, other), 200, 'another sign-in of the same user and client');
      assert.equal(await status(app, await refreshed(app, other)), 200);
    });

    test('a code_challenge is 43 to 128 characters of A-Z a-z 0-9 - . _ ~, or the request goes back refused', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const unreserved = 'AZaz09-._~';
      for (const challenge of [unreserved.repeat(5).slice(0, 43), unreserved.repeat(13).slice(0, 128)]) {
        const query = redirectQuery(await postSignIn(app, { username: owner.username, challenge }));
        assert.ok(query.get('code'), `${challenge.length} characters`);
      }
      for (const challenge of [
        'a'.repeat(42),
        'a'.repeat(129),
        `${'a'.repeat(42)}+`,
        `${'a'.repeat(42)}=`,
        `${'a'.repeat(42)}/`,
      ]) {
        const query = redirectQuery(await postSignIn(app, { username: owner.username, challenge }));
        assert.equal(query.get('error'), 'invalid_request', challenge);
        assert.match(query.get('error_description') ?? '', /code_challenge/);
        assert.equal(query.get('code'), null);
      }
    });

    test('the sign-in form is refused when a browser says it was sent from another page than ours', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const challenge = 'c'.repeat(43);
      const page = await app.request('GET', `/oauth/authorize?${form(authorizeFields({ username: '', challenge }))}`, {
        token: null,
      });
      assert.equal(page.headers['referrer-policy'], 'same-origin', 'so that the POST carries its Origin');
      const body = form({ ...authorizeFields({ username: '', challenge }), username: owner.username, password: PASSWORD });
      const post = (origin: string | undefined) =>
        app.request('POST', '/oauth/authorize', {
          token: null,
          headers: { ...FORM, ...(origin === undefined ? {} : { origin }) },
          body,
        });
      for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:8081', 'https://127.0.0.1:8080']) {
        const res = await post(origin);
        assert.equal(res.status, 403, origin);
        assert.equal(res.headers.location, undefined, origin);
        assert.match(res.body, /sent only from this server/);
      }
      for (const origin of ['http://127.0.0.1:8080', 'http://localhost:8080', undefined]) {
        const res = await post(origin);
        assert.equal(res.status, 302, `${origin}: ${String(res.body).slice(0, 200)}`);
        assert.ok(String(res.headers.location).startsWith(`${CONSOLE.redirectUri}?code=`));
      }
    });
  });
}
