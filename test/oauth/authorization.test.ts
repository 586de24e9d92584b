import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ConfigOverrides } from '../../src/config.ts';
import { ensureConsoleClient } from '../../src/domain/oauth/console-client.ts';
import { admin, newAccount } from '../helpers/accounts.ts';
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
  tokenRequest,
} from './helpers.ts';

const CALLBACK = 'https://tool.example/callback';

async function confidentialClient(app: TestApp, token?: string) {
  const res = await app.request('POST', '/v4/account/oauth-clients', {
    body: { label: 'Tool', redirect_uri: CALLBACK },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200);
  return res.body as { id: string; secret: string };
}

function exchange(app: TestApp, code: string, verifier: string, extra: Record<string, string> = {}) {
  return tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    client_id: CONSOLE.clientId,
    redirect_uri: CONSOLE.redirectUri,
    code_verifier: verifier,
    ...extra,
  });
}

for (const dialect of DIALECTS) {
  describe(`OAuth authorization server [${dialect}]`, () => {
    test('the console signs in with PKCE; the token works on /v4 with exactly the scopes granted; refresh rotates', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      const { verifier, challenge } = pkcePair();

      const page = await app.request(
        'GET',
        `/oauth/authorize?${form(authorizeFields({ username: '', challenge, scope: 'nodes:read_write,domains:read_only' }))}`,
        { token: null },
      );
      assert.equal(page.status, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.match(page.body, /Sign in to Cumulo console/);
      assert.match(page.body, /domains: read only/);
      assert.match(page.body, /nodes: read and change/);
      assert.match(page.body, new RegExp(`name="code_challenge" value="${challenge}"`));

      const code = await signInForCode(app, {
        username: owner.username,
        challenge,
        scope: 'nodes:read_write,domains:read_only',
        state: 'abc',
      });
      const res = await exchange(app, code, verifier);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers['cache-control'], 'no-store');
      const tokens = res.body;
      assert.equal(tokens.token_type, 'Bearer');
      assert.equal(tokens.scope, 'domains:read_only nodes:read_write');
      assert.ok(tokens.expires_in > 7190 && tokens.expires_in <= 7200, `expires_in ${tokens.expires_in}`);
      assert.match(tokens.access_token, /^[0-9a-f]{64}$/);
      assert.match(tokens.refresh_token, /^[0-9a-f]{64}$/);

      const as = (token: string) => ({ token });
      assert.equal((await app.request('GET', '/v4/node/instances', as(tokens.access_token))).status, 200);
      assert.equal((await app.request('GET', '/v4/domains', as(tokens.access_token))).status, 200);
      assert.equal(
        (
          await app.request('POST', '/v4/domains', {
            ...as(tokens.access_token),
            body: { domain: 'x.example', type: 'master', soa_email: 'a@x.example' },
          })
        ).status,
        403,
      );
      assert.equal((await app.request('GET', '/v4/images', as(tokens.access_token))).status, 403);
      assert.equal((await app.request('GET', '/v4/profile/tokens', as(tokens.access_token))).status, 403);
      const profile = await app.request('GET', '/v4/profile', { token: owner.token });
      assert.equal(profile.body.username, owner.username);

      // The OAuth token is not a personal access token.
      const pats = await app.request('GET', '/v4/profile/tokens', { token: owner.token });
      assert.ok(pats.body.data.every((p: { label: string }) => p.label !== 'Cumulo console'));

      const refreshed = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: CONSOLE.clientId,
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token);
      assert.equal(refreshed.body.scope, tokens.scope);
      assert.equal((await app.request('GET', '/v4/node/instances', as(refreshed.body.access_token))).status, 200);

      const narrower = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token,
        client_id: CONSOLE.clientId,
        scope: 'nodes:read_write',
      });
      assert.equal(narrower.status, 200);
      assert.equal(narrower.body.scope, 'nodes:read_write');
      assert.equal((await app.request('GET', '/v4/domains', as(narrower.body.access_token))).status, 403);
      const wider = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: narrower.body.refresh_token,
        client_id: CONSOLE.clientId,
        scope: 'nodes:read_write images:read_only',
      });
      assert.equal(wider.status, 400);
      assert.equal(wider.body.error, 'invalid_scope');
    });

    test("the console's client is registered once, its redirect URI following the public URL at each start", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const row = () =>
        ctx.db.selectFrom('oauth_clients').selectAll().where('id', '=', CONSOLE.clientId).executeTakeFirstOrThrow();
      const first = await row();
      assert.deepEqual([first.account_id, first.public, first.redirect_uri], [0, 1, 'http://127.0.0.1:8080/']);
      const moved = { ...ctx, config: { ...ctx.config, publicUrl: 'https://cloud.example' } };
      await ensureConsoleClient(moved);
      const changed = await row();
      assert.equal(changed.redirect_uri, 'https://cloud.example/');
      ctx.clock.advance(5_000);
      await ensureConsoleClient(moved);
      const again = await row();
      assert.equal(again.updated, changed.updated, 'nothing written when nothing changed');
      assert.equal(again.created, first.created, 'the same row');
      assert.equal((await ctx.db.selectFrom('oauth_clients').select('id').where('account_id', '=', 0).execute()).length, 1);
    });

    test('no scope asked is every scope; a bad scope goes back to the client as invalid_scope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const all = await consoleTokens(app, owner.username);
      assert.equal(all.scope, '*');
      assert.equal((await app.request('GET', '/v4/images', { token: all.access_token })).status, 200);

      const { challenge } = pkcePair();
      const bad = redirectQuery(
        await postSignIn(app, { username: owner.username, challenge, scope: 'nodes:everything', state: 's9' }),
      );
      assert.equal(bad.get('error'), 'invalid_scope');
      assert.match(bad.get('error_description') ?? '', /nodes:everything/);
      assert.equal(bad.get('state'), 's9');
      assert.equal(bad.get('code'), null);
    });

    test('a wrong password shows the page again, 401; deny goes back with access_denied and the state', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      const { challenge } = pkcePair();
      const wrong = await postSignIn(app, { username: owner.username, password: 'not it at all', challenge });
      assert.equal(wrong.status, 401);
      assert.match(wrong.body, /Wrong username or password/);
      assert.match(wrong.body, new RegExp(`value="${owner.username}"`));
      assert.doesNotMatch(wrong.body, /not it at all/);
      const unknown = await postSignIn(app, { username: 'nobody-here', challenge });
      assert.equal(unknown.status, 401);
      assert.match(unknown.body, /Wrong username or password/);

      const denied = redirectQuery(
        await postSignIn(app, { username: '', password: '', decision: 'deny', challenge, state: 'st' }),
      );
      assert.equal(denied.get('error'), 'access_denied');
      assert.equal(denied.get('state'), 'st');
      const codes = await app.runtime.ctx.db.selectFrom('oauth_codes').select('code_hash').execute();
      assert.equal(codes.length, 0, 'no code was made');
    });

    test('an unknown client or a redirect URI the client does not own is refused on the page, never redirected', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { challenge } = pkcePair();
      const unknown = await app.request(
        'GET',
        `/oauth/authorize?${form(authorizeFields({ username: '', clientId: 'no-such-client', challenge }))}`,
        { token: null },
      );
      assert.equal(unknown.status, 400);
      assert.equal(unknown.headers.location, undefined);
      assert.match(unknown.body, /invalid_client/);
      const elsewhere = await app.request(
        'GET',
        `/oauth/authorize?${form(authorizeFields({ username: '', redirectUri: 'https://evil.example/', challenge }))}`,
        { token: null },
      );
      assert.equal(elsewhere.status, 400);
      assert.equal(elsewhere.headers.location, undefined);
      assert.match(elsewhere.body, /redirect_uri/);
      const twice = await app.request(
        'GET',
        `/oauth/authorize?${form(authorizeFields({ username: '', challenge }))}&client_id=${CONSOLE.clientId}`,
        { token: null },
      );
      assert.equal(twice.status, 400);
      assert.match(twice.body, /client_id is given more than once/);
    });

    test("the console's redirect URIs follow the configuration, never the request's Host", async (t) => {
      const { challenge } = pkcePair();
      const signIn = (app: TestApp, redirectUri: string, host: string) =>
        app.request('POST', '/oauth/authorize', {
          token: null,
          headers: { 'content-type': 'application/x-www-form-urlencoded', host },
          body: form({ ...authorizeFields({ username: '', redirectUri, challenge }), username: 'admin', password: PASSWORD }),
        });
      const cases: [ConfigOverrides, string[], string[]][] = [
        [
          {},
          ['http://127.0.0.1:8080/', 'http://localhost:8080/', 'http://[::1]:8080/'],
          ['http://evil.example/', 'http://evil.example:8080/', 'http://127.0.0.1:8081/'],
        ],
        [
          { publicUrl: 'https://cloud.example' },
          ['https://cloud.example/'],
          ['http://evil.example/', 'http://127.0.0.1:8080/', 'http://cloud.example/'],
        ],
        [{ host: '0.0.0.0', port: 9000 }, ['http://127.0.0.1:9000/', 'http://localhost:9000/'], ['http://evil.example:9000/']],
        [{ host: '192.0.2.7', port: 80 }, ['http://192.0.2.7/'], ['http://localhost/', 'http://evil.example/']],
      ];
      for (const [config, allowed, refused] of cases) {
        const app = await buildTestApp(t, { dialect, config });
        await givePassword(app, 'admin');
        for (const redirectUri of refused) {
          for (const host of [new URL(redirectUri).host, 'evil.example']) {
            const res = await signIn(app, redirectUri, host);
            assert.equal(res.status, 400, `${JSON.stringify(config)} ${redirectUri} with Host ${host}`);
            assert.equal(res.headers.location, undefined);
            assert.match(res.body, /redirect_uri/);
          }
        }
        for (const redirectUri of allowed) {
          const res = await signIn(app, redirectUri, 'evil.example');
          assert.equal(res.status, 302, `${JSON.stringify(config)} ${redirectUri}: ${String(res.body).slice(0, 200)}`);
          assert.ok(String(res.headers.location).startsWith(`${redirectUri}?code=`));
        }
      }
    });

    test('a public client must use PKCE with S256; a wrong verifier spends the code', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const without = redirectQuery(await postSignIn(app, { username: owner.username, challenge: undefined }));
      assert.equal(without.get('error'), 'invalid_request');
      assert.match(without.get('error_description') ?? '', /code_challenge/);
      const { verifier, challenge } = pkcePair();
      const plain = redirectQuery(await postSignIn(app, { username: owner.username, challenge: verifier, method: 'plain' }));
      assert.equal(plain.get('error'), 'invalid_request');
      assert.match(plain.get('error_description') ?? '', /plain/);

      const code = await signInForCode(app, { username: owner.username, challenge });
      const wrong = await exchange(app, code, pkcePair().verifier);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');
      assert.equal((await exchange(app, code, verifier)).status, 400, 'the code was spent by the failed try');
      const noVerifier = await tokenRequest(app, {
        grant_type: 'authorization_code',
        code: await signInForCode(app, { username: owner.username, challenge }),
        client_id: CONSOLE.clientId,
        redirect_uri: CONSOLE.redirectUri,
      });
      assert.equal(noVerifier.status, 400);
      assert.equal(noVerifier.body.error, 'invalid_client', 'a public client without its verifier has proved nothing');
    });

    test('a confidential client proves itself with its secret, in the body or with Basic', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const client = await confidentialClient(app);
      const signIn = () =>
        signInForCode(app, { username: owner.username, clientId: client.id, redirectUri: CALLBACK, scope: 'events:read_only' });
      const base = { grant_type: 'authorization_code', client_id: client.id, redirect_uri: CALLBACK };

      const missing = await tokenRequest(app, { ...base, code: await signIn() });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, 'invalid_client', 'no client authentication included (RFC 6749 5.2)');
      const wrong = await tokenRequest(app, { ...base, code: await signIn(), client_secret: 'f'.repeat(64) });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_client');
      const basicWrong = await tokenRequest(
        app,
        { ...base, code: await signIn() },
        { authorization: `Basic ${Buffer.from(`${client.id}:nope`).toString('base64')}` },
      );
      assert.equal(basicWrong.status, 401);
      assert.equal(basicWrong.body.error, 'invalid_client');
      assert.match(String(basicWrong.headers['www-authenticate']), /^Basic/);

      const good = await tokenRequest(app, { ...base, code: await signIn(), client_secret: client.secret });
      assert.equal(good.status, 200, JSON.stringify(good.body));
      assert.equal(good.body.scope, 'events:read_only');
      const basic = await tokenRequest(
        app,
        { ...base, code: await signIn() },
        { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
      );
      assert.equal(basic.status, 200);

      const refreshNoSecret = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: good.body.refresh_token,
        client_id: client.id,
      });
      assert.equal(refreshNoSecret.status, 400);
      assert.equal(refreshNoSecret.body.error, 'invalid_client');
      const refreshed = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: good.body.refresh_token,
        client_id: client.id,
        client_secret: client.secret,
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      const otherClient = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token,
        client_id: CONSOLE.clientId,
      });
      assert.equal(otherClient.status, 400);
      assert.equal(otherClient.body.error, 'invalid_grant');
    });

    test('the token endpoint answers each malformed request as RFC 6749 5.2 says', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const client = await confidentialClient(app);
      const cases: [string, Record<string, string>, string][] = [
        ['no grant_type', { client_id: client.id, client_secret: client.secret }, 'invalid_request'],
        [
          'unknown grant_type',
          { grant_type: 'urn:example:unknown', client_id: client.id, client_secret: client.secret },
          'unsupported_grant_type',
        ],
        [
          'a grant no client here may use',
          { grant_type: 'password', client_id: client.id, client_secret: client.secret },
          'unauthorized_client',
        ],
        [
          'nor this one',
          { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret },
          'unauthorized_client',
        ],
        ['no credentials', { grant_type: 'authorization_code', code: 'abc', client_id: CONSOLE.clientId }, 'invalid_client'],
        ['no client', { grant_type: 'authorization_code', code: 'abc', code_verifier: 'v'.repeat(43) }, 'invalid_client'],
        [
          'unknown client',
          { grant_type: 'authorization_code', code: 'abc', client_id: 'nope', code_verifier: 'v'.repeat(43) },
          'invalid_client',
        ],
        [
          'unknown code',
          { grant_type: 'authorization_code', code: 'abc', client_id: CONSOLE.clientId, code_verifier: 'v'.repeat(43) },
          'invalid_grant',
        ],
        ['no refresh token', { grant_type: 'refresh_token', client_id: CONSOLE.clientId }, 'invalid_request'],
      ];
      for (const [name, fields, error] of cases) {
        const res = await tokenRequest(app, fields);
        assert.ok(res.status === 400 || res.status === 401, `${name}: ${res.status}`);
        assert.equal(res.body.error, error, `${name}: ${JSON.stringify(res.body)}`);
        assert.equal(typeof res.body.error_description, 'string');
      }
      const json = await app.request('POST', '/oauth/token', { token: null, body: { grant_type: 'refresh_token' } });
      assert.equal(json.status, 400);
      assert.equal(json.body.error, 'invalid_request');
      const empty = await app.request('POST', '/oauth/token', {
        token: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.error, 'invalid_request');
      const twice = await app.request('POST', '/oauth/token', {
        token: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&grant_type=refresh_token',
      });
      assert.equal(twice.status, 400);
      assert.equal(twice.body.error, 'invalid_request');
      const get = await app.request('GET', '/oauth/token', { token: null });
      assert.equal(get.status, 405);
    });

    test('codes and tokens run out by the service clock: a code after 5 minutes, an access token after 2 hours', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const { verifier, challenge } = pkcePair();
      const late = await signInForCode(app, { username: owner.username, challenge });
      ctx.clock.advance(301_000);
      const expired = await exchange(app, late, verifier);
      assert.equal(expired.status, 400);
      assert.deepEqual(expired.body, {
        error: 'invalid_grant',
        error_description: 'Invalid grant: authorization code has expired',
      });

      const tokens = await consoleTokens(app, owner.username);
      ctx.clock.advance(7_190_000);
      assert.equal((await app.request('GET', '/v4/profile', { token: tokens.access_token })).status, 200);
      ctx.clock.advance(11_000);
      assert.equal((await app.request('GET', '/v4/profile', { token: tokens.access_token })).status, 401);
      const refreshed = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: CONSOLE.clientId,
      });
      assert.equal(refreshed.status, 200, 'the refresh token outlives the access token');
      ctx.clock.advance(31 * 86_400_000);
      const stale = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token,
        client_id: CONSOLE.clientId,
      });
      assert.equal(stale.status, 400);
      assert.equal(stale.body.error, 'invalid_grant');
      assert.match(stale.body.error_description, /expired/);
    });

    test('20 parallel exchanges of one code, or refreshes of one token, issue at most once, and the replays revoke it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const works = async (accessToken: string) => (await app.request('GET', '/v4/profile', { token: accessToken })).status;
      const liveRefreshTokens = async () =>
        (await app.runtime.ctx.db.selectFrom('oauth_refresh_tokens').select('token_hash').where('state', '=', 'live').execute())
          .length;

      const first = pkcePair();
      const code = await signInForCode(app, { username: owner.username, challenge: first.challenge });
      const exchanges = await Promise.all(Array.from({ length: 20 }, () => exchange(app, code, first.verifier)));
      const issued = exchanges.filter((r) => r.status === 200);
      assert.ok(issued.length <= 1, `${issued.length} exchanges issued`);
      assert.equal(exchanges.filter((r) => r.status === 400 && r.body.error === 'invalid_grant').length, 20 - issued.length);
      for (const r of issued) assert.equal(await works(r.body.access_token), 401, 'revoked by the replays');
      assert.equal(await liveRefreshTokens(), 0);

      const second = pkcePair();
      const tokens = (
        await exchange(app, await signInForCode(app, { username: owner.username, challenge: second.challenge }), second.verifier)
      ).body;
      const refreshes = await Promise.all(
        Array.from({ length: 20 }, () =>
          tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CONSOLE.clientId }),
        ),
      );
      const refreshed = refreshes.filter((r) => r.status === 200);
      assert.ok(refreshed.length <= 1, `${refreshed.length} refreshes issued`);
      for (const r of [...refreshed.map((r) => r.body), tokens]) assert.equal(await works(r.access_token), 401);
      assert.equal(await liveRefreshTokens(), 0);
    });
  });
}
