import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { CONSOLE, consoleTokens, givePassword, pkcePair, signInForCode, tokenRequest } from './helpers.ts';

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`authorized apps [${dialect}]`, () => {
    test('a sign-in makes one app per user and client; another sign-in widens its scopes', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      assert.deepEqual((await app.request('GET', '/v4/profile/apps', { token: owner.token })).body, {
        data: [],
        page: 1,
        pages: 1,
        results: 0,
      });

      await consoleTokens(app, owner.username, 'nodes:read_only');
      const first = await app.request('GET', '/v4/profile/apps', { token: owner.token });
      assert.equal(first.status, 200);
      assert.equal(first.body.results, 1);
      const listed = first.body.data[0];
      const expiry = new Date(Date.parse(`${listed.created}Z`) + 30 * DAY).toISOString().slice(0, 19);
      assert.deepEqual(listed, {
        id: listed.id,
        label: 'Cumulo console',
        thumbnail_url: null,
        scopes: 'nodes:read_only',
        created: listed.created,
        expiry,
        website: '127.0.0.1:8080',
      });

      await consoleTokens(app, owner.username, 'nodes:read_write domains:read_only');
      const viewed = await app.request('GET', `/v4/profile/apps/${listed.id}`, { token: owner.token });
      assert.equal(viewed.status, 200);
      assert.equal(viewed.body.scopes, 'domains:read_only nodes:read_write');
      assert.equal((await app.request('GET', '/v4/profile/apps', { token: owner.token })).body.results, 1);

      const other = await newAccount(app);
      assert.equal((await app.request('GET', `/v4/profile/apps/${listed.id}`, { token: other.token })).status, 404);
      assert.equal((await app.request('DELETE', `/v4/profile/apps/${listed.id}`, { token: other.token })).status, 404);
      assert.equal((await app.request('GET', '/v4/profile/apps/999999', { token: owner.token })).status, 404);
    });

    test('revoking an app ends its access and refresh tokens at once; other sessions of the user stay', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      const one = await consoleTokens(app, owner.username);
      const two = await consoleTokens(app, owner.username);
      assert.equal((await app.request('GET', '/v4/profile', { token: one.access_token })).status, 200);
      const [listed] = (await app.request('GET', '/v4/profile/apps', { token: owner.token })).body.data;

      const revoked = await app.request('DELETE', `/v4/profile/apps/${listed.id}`, { token: owner.token });
      assert.equal(revoked.status, 200);
      assert.deepEqual(revoked.body, {});
      for (const tokens of [one, two]) {
        assert.equal((await app.request('GET', '/v4/profile', { token: tokens.access_token })).status, 401);
        const refresh = await tokenRequest(app, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: CONSOLE.clientId,
        });
        assert.equal(refresh.status, 400);
        assert.equal(refresh.body.error, 'invalid_grant');
      }
      assert.equal((await app.request('GET', '/v4/profile', { token: owner.token })).status, 200, 'the personal token stays');
      assert.equal((await app.request('GET', '/v4/profile/apps', { token: owner.token })).body.results, 0);
      const db = app.runtime.ctx.db;
      assert.equal((await db.selectFrom('tokens').select('id').where('app_id', 'is not', null).execute()).length, 0);
      assert.equal((await db.selectFrom('oauth_refresh_tokens').select('app_id').execute()).length, 0);
    });

    test("deleting a client revokes every user's app and token issued through it, and its unused codes", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const developer = await admin(app);
      const created = await app.request('POST', '/v4/account/oauth-clients', {
        body: { label: 'Third party', redirect_uri: 'https://third.example/cb', public: true },
      });
      const clientId = created.body.id;
      const user = await newAccount(app);
      await givePassword(app, user.username);
      const { verifier, challenge } = pkcePair();
      const signIn = () =>
        signInForCode(app, { username: user.username, clientId, redirectUri: 'https://third.example/cb', challenge });
      const exchange = (code: string) =>
        tokenRequest(app, {
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          redirect_uri: 'https://third.example/cb',
          code_verifier: verifier,
        });
      const tokens = (await exchange(await signIn())).body;
      assert.equal((await app.request('GET', '/v4/profile', { token: tokens.access_token })).status, 200);
      const [listed] = (await app.request('GET', '/v4/profile/apps', { token: user.token })).body.data;
      assert.equal(listed.label, 'Third party');
      assert.equal(listed.website, 'third.example');
      const pending = await signIn();

      assert.equal(
        (await app.request('DELETE', `/v4/account/oauth-clients/${clientId}`, { token: developer.token })).status,
        200,
      );
      assert.equal((await app.request('GET', '/v4/profile', { token: tokens.access_token })).status, 401);
      assert.equal((await app.request('GET', '/v4/profile/apps', { token: user.token })).body.results, 0);
      const refresh = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      assert.equal(refresh.body.error, 'invalid_client');
      assert.equal((await exchange(pending)).body.error, 'invalid_client');
      assert.equal((await app.runtime.ctx.db.selectFrom('oauth_codes').select('code_hash').execute()).length, 0);
    });

    test('an app runs out with its last refresh token; the expiry job removes it, or moves on after a refresh', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      const first = await consoleTokens(app, owner.username);
      const second = await consoleTokens(app, owner.username);
      ctx.clock.advance(20 * DAY);
      const refreshed = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: second.refresh_token,
        client_id: CONSOLE.clientId,
      });
      assert.equal(refreshed.status, 200);

      ctx.clock.advance(11 * DAY);
      await runDueJobs(app);
      const apps = await app.request('GET', '/v4/profile/apps', { token: owner.token });
      assert.equal(apps.body.results, 1, 'the refresh moved the expiry on');
      const stale = await tokenRequest(app, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: CONSOLE.clientId,
      });
      assert.equal(stale.body.error, 'invalid_grant', 'the other session ran out');
      assert.equal(
        (await ctx.db.selectFrom('oauth_refresh_tokens').select('app_id').execute()).length,
        1,
        'its refresh token was removed',
      );

      ctx.clock.advance(20 * DAY);
      assert.equal(
        (await app.request('GET', '/v4/profile/apps', { token: owner.token })).body.results,
        0,
        'not listed once run out',
      );
      await runDueJobs(app);
      assert.equal((await ctx.db.selectFrom('oauth_apps').select('id').execute()).length, 0);
      assert.equal((await ctx.db.selectFrom('oauth_refresh_tokens').select('app_id').execute()).length, 0);
      assert.equal((await ctx.db.selectFrom('jobs').select('id').where('kind', 'like', 'oauth.%').execute()).length, 0);
    });
  });
}
