import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply, type TestApp } from '../helpers/app.ts';
import { CONSOLE, form, givePassword, PASSWORD, postSignIn, redirectQuery, tokenRequest } from './helpers.ts';

/**
 * The sign-in of a console that lives at an address of its own, as the vendor's open-source console
 * does it (packages/manager/src/OAuth/oauth.ts): it comes back to `/oauth/callback?returnTo=<path>`,
 * posts its FormData to the token endpoint without `redirect_uri` (and with `state`), revokes its
 * access token with a form, then sends the browser to the login server's `/logout`.
 */

const APP = 'http://localhost:3000';
const CALLBACK = `${APP}/oauth/callback`;

/** The console's PKCE: a verifier of 64 random bytes, base64url (86 characters), and its S256 challenge. */
function consolePkce(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(64).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

/** The console's client, registered by the account: public, coming back to /oauth/callback. */
async function registerConsole(app: TestApp, redirectUri = CALLBACK): Promise<string> {
  const res = await app.request('POST', '/v4/account/oauth-clients', {
    body: { label: 'Vendor console', redirect_uri: redirectUri, public: true },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

/** The authorize URL as the console makes it: `returnTo` put into the redirect URI as it is, not encoded. */
function authorizeUrl(clientId: string, challenge: string, returnTo: string, state: string): string {
  const query = new URLSearchParams({
    client_id: clientId,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    redirect_uri: `${CALLBACK}?returnTo=${returnTo}`,
    response_type: 'code',
    scope: '*',
    state,
  });
  return `/oauth/authorize?${query}`;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** Posts the sign-in page's form as a browser does: its hidden fields, the user's name and password, allow. */
async function submitPage(app: TestApp, page: Reply, username: string): Promise<Reply> {
  assert.equal(page.status, 200, String(page.body).slice(0, 300));
  const hidden = [...String(page.body).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(
    ([, name, value]): [string, string] => [
      name ?? '',
      (value ?? '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e),
    ],
  );
  const fields = new URLSearchParams([...hidden, ['username', username], ['password', PASSWORD], ['decision', 'allow']]);
  return app.request('POST', '/oauth/authorize', {
    token: null,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
}

/** A body as a browser's fetch sends a FormData: multipart with a boundary of its choosing. */
async function multipart(fields: [string, string | Blob][]): Promise<{ contentType: string; payload: Buffer }> {
  const data = new FormData();
  for (const [name, value] of fields) data.append(name, value);
  const request = new Request('http://localhost/', { method: 'POST', body: data });
  return { contentType: request.headers.get('content-type') ?? '', payload: Buffer.from(await request.arrayBuffer()) };
}

async function postMultipart(app: TestApp, fields: [string, string | Blob][], headers: Record<string, string> = {}) {
  const { contentType, payload } = await multipart(fields);
  return app.request('POST', '/oauth/token', {
    token: null,
    headers: { 'content-type': contentType, ...headers },
    body: payload,
  });
}

/** Where a redirect goes. */
function locationOf(res: Reply): URL {
  assert.equal(res.status, 302, `expected a redirect: ${res.status} ${String(res.body).slice(0, 300)}`);
  return new URL(String(res.headers.location));
}

function assertTokenRefusal(res: Reply, what: string, error: string, description: RegExp) {
  assert.equal(res.status, 400, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error, error, what);
  assert.match(res.body.error_description, description, what);
  assert.doesNotMatch(res.body.error_description, /json/i, `${what}: no hint to send JSON`);
}

/** A refusal of the sign-in that goes back to no one: a 400 page. */
function assertNotRedirected(res: Reply, what: string) {
  assert.equal(res.status, 400, `${what}: ${res.status} ${String(res.body).slice(0, 200)}`);
  assert.equal(res.headers.location, undefined, what);
  assert.match(String(res.headers['content-type']), /text\/html/, what);
}

for (const dialect of DIALECTS) {
  describe(`a console signing in from its own address [${dialect}]`, () => {
    test('as the vendor console does it: query-string redirect, multipart token request without redirect_uri, revoke, logout', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const clientId = await registerConsole(app);
      const { verifier, challenge } = consolePkce();
      assert.equal(verifier.length, 86);
      const nonce = crypto.randomUUID();

      const page = await app.request('GET', authorizeUrl(clientId, challenge, '/nodes/42?view=disks', nonce), { token: null });
      assert.match(page.body, /Sign in to Vendor console/);
      const location = locationOf(await submitPage(app, page, owner.username));
      assert.equal(`${location.origin}${location.pathname}`, CALLBACK, 'back to the requested URI');
      assert.equal(location.searchParams.get('returnTo'), '/nodes/42?view=disks', 'its query kept');
      assert.equal(location.searchParams.get('state'), nonce);
      const code = location.searchParams.get('code');
      assert.ok(code);
      assert.deepEqual([...location.searchParams.keys()].sort(), ['code', 'returnTo', 'state']);

      const res = await postMultipart(
        app,
        [
          ['grant_type', 'authorization_code'],
          ['client_id', clientId],
          ['code', code],
          ['state', nonce],
          ['code_verifier', verifier],
        ],
        { origin: APP },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers['access-control-allow-origin'], '*', 'readable from the console page');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.body.token_type, 'Bearer');
      assert.ok(res.body.expires_in > 7190 && res.body.expires_in <= 7200);
      assert.equal(res.body.scope, '*');
      const access = res.body.access_token as string;
      assert.equal((await app.request('GET', '/v4/profile', { token: access })).body.username, owner.username);

      // Sign out: the access token revoked with a form in UTF-8, then the browser to /logout with nothing more.
      const revoked = await app.request('POST', '/oauth/revoke', {
        token: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8', origin: APP },
        body: new URLSearchParams({ client_id: clientId, token: access }).toString(),
      });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal(revoked.headers['access-control-allow-origin'], '*', 'answered to the console page');
      const preflight = await app.request('OPTIONS', '/oauth/revoke', {
        token: null,
        headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      assert.deepEqual([preflight.status, preflight.headers['access-control-allow-headers']], [204, 'content-type']);
      assert.equal((await app.request('GET', '/v4/profile', { token: access })).status, 401);
      const out = await app.request('GET', '/logout', { token: null });
      assert.equal(out.status, 200);
      assert.match(String(out.headers['content-type']), /text\/html/);
      assert.equal(out.headers['cache-control'], 'no-store');
      assert.equal(out.headers['set-cookie'], undefined, 'the sign-in keeps no session to clear');
      assert.match(out.body, /You are signed out/);
      assert.doesNotMatch(out.body, /role="alert"/);
    });

    test('the token endpoint takes a form (with a charset or not) and multipart, for both grants; the same fields answer alike', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const signIn = async () => {
        const { verifier, challenge } = consolePkce();
        const code = redirectQuery(await postSignIn(app, { username: owner.username, challenge })).get('code') ?? '';
        return { grant_type: 'authorization_code', code, client_id: CONSOLE.clientId, code_verifier: verifier };
      };
      const viaForm = await tokenRequest(app, await signIn(), {
        'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
      });
      assert.equal(viaForm.status, 200, JSON.stringify(viaForm.body));
      const viaMultipart = await postMultipart(app, Object.entries(await signIn()));
      assert.equal(viaMultipart.status, 200, JSON.stringify(viaMultipart.body));
      assert.deepEqual(Object.keys(viaMultipart.body).sort(), Object.keys(viaForm.body).sort());

      const refreshed = await postMultipart(app, [
        ['grant_type', 'refresh_token'],
        ['refresh_token', viaMultipart.body.refresh_token],
        ['client_id', CONSOLE.clientId],
      ]);
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      const again = await postMultipart(app, [
        ['grant_type', 'refresh_token'],
        ['refresh_token', viaMultipart.body.refresh_token],
        ['client_id', CONSOLE.clientId],
      ]);
      assertTokenRefusal(again, 'a rotated refresh token', 'invalid_grant', /invalid/);
    });

    test('a body the token endpoint does not take is a 400 invalid_request saying what to send, and the code stays good', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const { verifier, challenge } = consolePkce();
      const code = redirectQuery(await postSignIn(app, { username: owner.username, challenge })).get('code') ?? '';
      const fields: [string, string][] = [
        ['grant_type', 'authorization_code'],
        ['client_id', CONSOLE.clientId],
        ['code', code],
        ['code_verifier', verifier],
      ];
      const post = (contentType: string | undefined, body: string | Buffer | undefined) =>
        app.request('POST', '/oauth/token', {
          token: null,
          headers: contentType ? { 'content-type': contentType } : {},
          ...(body !== undefined ? { body } : {}),
        });
      const good = await multipart(fields);

      const forms = /must be application\/x-www-form-urlencoded or multipart\/form-data/;
      assertTokenRefusal(
        await post('application/json', JSON.stringify(Object.fromEntries(fields))),
        'JSON',
        'invalid_request',
        forms,
      );
      assertTokenRefusal(await post(undefined, undefined), 'no body', 'invalid_request', forms);
      assertTokenRefusal(
        await post('text/plain', form(Object.fromEntries(fields))),
        'text/plain',
        'invalid_request',
        /^Unsupported Content-Type: send application\/x-www-form-urlencoded or multipart\/form-data$/,
      );
      assertTokenRefusal(
        await post('multipart/form-data; boundary=not-the-one', good.payload),
        'another boundary',
        'invalid_request',
        /not valid multipart\/form-data/,
      );
      assertTokenRefusal(
        await post('multipart/form-data', good.payload),
        'no boundary',
        'invalid_request',
        /not valid multipart/,
      );
      assertTokenRefusal(
        await post(good.contentType, good.payload.subarray(0, good.payload.length - 10)),
        'cut short',
        'invalid_request',
        /not valid multipart/,
      );
      assertTokenRefusal(
        await postMultipart(app, [...fields, ['code_verifier', new Blob([verifier])]]),
        'a file',
        'invalid_request',
        /^code_verifier: A file is not taken here/,
      );
      assertTokenRefusal(
        await postMultipart(app, [...fields, ['code', code]]),
        'a field twice',
        'invalid_request',
        /`code` is given more than once/,
      );
      assertTokenRefusal(
        await postMultipart(app, [
          ...fields.filter(([name]) => name !== 'code_verifier'),
          ['code_verifier', `${verifier}\u0000`],
        ]),
        'NUL',
        'invalid_request',
        /^code_verifier: .*NUL/,
      );
      const exchanged = await post(good.contentType, good.payload);
      assert.equal(exchanged.status, 200, `none of the refusals spent the code: ${JSON.stringify(exchanged.body)}`);
    });

    test("redirect_uri may be left out when the code went to the client's own redirect URI; otherwise it is asked for first", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const clientId = await registerConsole(app);
      const codeFor = async (redirectUri: string | undefined, client = clientId) => {
        const { verifier, challenge } = consolePkce();
        const signedIn = await postSignIn(app, { username: owner.username, clientId: client, redirectUri, challenge });
        return { code: redirectQuery(signedIn).get('code') ?? '', verifier };
      };
      const exchange = (client: string, c: { code: string; verifier: string }, redirectUri?: string) =>
        tokenRequest(app, {
          grant_type: 'authorization_code',
          code: c.code,
          client_id: client,
          code_verifier: c.verifier,
          redirect_uri: redirectUri,
        });

      for (const redirectUri of [CALLBACK, `${CALLBACK}?returnTo=/`]) {
        const res = await exchange(clientId, await codeFor(redirectUri));
        assert.equal(res.status, 200, `${redirectUri}: ${JSON.stringify(res.body)}`);
      }
      // The Cumulo console's client, at one of this server's own addresses.
      const own = await exchange(CONSOLE.clientId, await codeFor(CONSOLE.redirectUri, CONSOLE.clientId));
      assert.equal(own.status, 200, JSON.stringify(own.body));
      // Given, it is still the code's own (RFC 6749 4.1.3).
      const given = await exchange(clientId, await codeFor(`${CALLBACK}?returnTo=/`), `${CALLBACK}?returnTo=/`);
      assert.equal(given.status, 200, JSON.stringify(given.body));
      const other = await exchange(clientId, await codeFor(`${CALLBACK}?returnTo=/`), CALLBACK);
      assertTokenRefusal(other, 'another redirect_uri given', 'invalid_request', /`redirect_uri` is invalid/);

      // The client's registration moved since the code was sent: the code's redirect URI must be named.
      const moved = await codeFor(`${CALLBACK}?returnTo=/`);
      const put = await app.request('PUT', `/v4/account/oauth-clients/${clientId}`, { body: { redirect_uri: `${APP}/cb` } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assertTokenRefusal(await exchange(clientId, moved), 'left out', 'invalid_request', /^Missing parameter: `redirect_uri`/);
      const named = await exchange(clientId, moved, `${CALLBACK}?returnTo=/`);
      assert.equal(named.status, 200, `the refusal left the code unspent: ${JSON.stringify(named.body)}`);
    });

    test('a redirect URI with a query added is the registered one; another path, address or a fragment is not', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const clientId = await registerConsole(app);
      const withQuery = await registerConsole(app, 'https://tool.example/cb?tenant=7');
      const signIn = (redirectUri: string, client = clientId, extra: { scope?: string; decision?: 'deny' } = {}) =>
        postSignIn(app, {
          username: owner.username,
          clientId: client,
          redirectUri,
          challenge: consolePkce().challenge,
          ...extra,
        });

      for (const redirectUri of [
        `${CALLBACK}?returnTo=/nodes`,
        `${CALLBACK}?returnTo=/nodes?page=2&order=asc`,
        `${CALLBACK}?returnTo=%2Fnodes`,
        'https://tool.example/cb?tenant=7',
      ]) {
        const location = locationOf(await signIn(redirectUri, redirectUri.startsWith(APP) ? clientId : withQuery));
        const asked = new URL(redirectUri);
        assert.equal(`${location.origin}${location.pathname}`, `${asked.origin}${asked.pathname}`, redirectUri);
        for (const [name, value] of asked.searchParams)
          assert.equal(location.searchParams.get(name), value, `${redirectUri}: ${name}`);
        assert.ok(location.searchParams.get('code'), redirectUri);
        assert.equal(location.searchParams.get('state'), 'state-1', redirectUri);
      }
      for (const [redirectUri, client] of [
        [`${CALLBACK}/more?returnTo=/`, clientId],
        [`${CALLBACK}x?returnTo=/`, clientId],
        [`${CALLBACK}?`, clientId],
        [`${CALLBACK}#returnTo=/`, clientId],
        [`${CALLBACK}?returnTo=/#top`, clientId],
        [`${APP}/oauth/x/../callback?returnTo=/`, clientId],
        ['http://localhost:3001/oauth/callback?returnTo=/', clientId],
        ['http://127.0.0.1:3000/oauth/callback?returnTo=/', clientId],
        ['https://tool.example/cb?tenant=7&tenant=8', withQuery],
        ['https://tool.example/cb?tenant=8', withQuery],
      ] as const) {
        const res = await signIn(redirectUri, client);
        assertNotRedirected(res, redirectUri);
        assert.match(res.body, /redirect_uri/, redirectUri);
      }

      // A code or state already in the query does not ride along: the redirect carries this sign-in's own.
      const planted = locationOf(await signIn(`${CALLBACK}?returnTo=/&code=planted&state=planted`));
      assert.equal(planted.searchParams.getAll('code').length, 1);
      assert.notEqual(planted.searchParams.get('code'), 'planted');
      assert.deepEqual(planted.searchParams.getAll('state'), ['state-1']);

      // Refusals after the sign-in go back with the query kept, the error and the state (RFC 6749 4.1.2.1).
      const denied = locationOf(await signIn(`${CALLBACK}?returnTo=/nodes`, clientId, { decision: 'deny' }));
      assert.equal(denied.searchParams.get('returnTo'), '/nodes');
      assert.equal(denied.searchParams.get('error'), 'access_denied');
      assert.equal(denied.searchParams.get('state'), 'state-1');
      assert.equal(denied.searchParams.get('code'), null);
      const badScope = locationOf(await signIn(`${CALLBACK}?returnTo=/`, clientId, { scope: 'nodes:sideways' }));
      assert.equal(badScope.searchParams.get('returnTo'), '/');
      assert.equal(badScope.searchParams.get('error'), 'invalid_scope');
      assert.match(badScope.searchParams.get('error_description') ?? '', /nodes:sideways|scope/);
      assert.equal(badScope.searchParams.get('state'), 'state-1');
    });

    test('/logout goes back only to the address of a redirect URI of the client named; anything else is a 400 page', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const clientId = await registerConsole(app);
      const logout = (query: Record<string, string>) =>
        app.request('GET', `/logout?${new URLSearchParams(query)}`, { token: null });

      for (const [client, target] of [
        [clientId, `${APP}/`],
        [clientId, `${APP}/login?next=/nodes`],
        [clientId, CALLBACK],
        [CONSOLE.clientId, 'http://127.0.0.1:8080/'],
        [CONSOLE.clientId, 'http://localhost:8080/'],
      ] as const) {
        const res = await logout({ client_id: client, redirect_uri: target });
        assert.equal(res.status, 302, `${client} ${target}: ${String(res.body).slice(0, 200)}`);
        assert.equal(res.headers.location, target);
        assert.equal(res.headers['cache-control'], 'no-store');
      }
      const refusals: [Record<string, string>, RegExp][] = [
        [{ redirect_uri: `${APP}/` }, /Missing parameter: `client_id`/],
        [{ client_id: 'no-such-client', redirect_uri: `${APP}/` }, /Invalid client/],
        [{ client_id: clientId, redirect_uri: 'https://evil.example/' }, /not at the address of a redirect URI/],
        [{ client_id: clientId, redirect_uri: 'http://localhost:3001/' }, /not at the address/],
        [{ client_id: clientId, redirect_uri: 'https://localhost:3000/' }, /not at the address/],
        [{ client_id: clientId, redirect_uri: 'javascript:alert(1)//localhost:3000' }, /not at the address/],
        [{ client_id: clientId, redirect_uri: '/nodes' }, /not at the address/],
        [{ client_id: CONSOLE.clientId, redirect_uri: `${APP}/` }, /not at the address/],
        [{ client_id: clientId, redirect_uri: `${APP}/\u0000` }, /redirect_uri: .*NUL/],
      ];
      for (const [query, reason] of refusals) {
        const res = await logout(query);
        assertNotRedirected(res, JSON.stringify(query));
        assert.match(res.body, /You are signed out/, JSON.stringify(query));
        assert.match(res.body, reason, JSON.stringify(query));
        assert.match(res.body, /<code>invalid_(request|client)<\/code>/, JSON.stringify(query));
      }
      const twice = await app.request('GET', `/logout?client_id=${clientId}&redirect_uri=${APP}/&redirect_uri=${APP}/x`, {
        token: null,
      });
      assertNotRedirected(twice, 'twice');
      assert.match(twice.body, /redirect_uri is given more than once/);
      const alone = await logout({ client_id: clientId });
      assert.equal(alone.status, 200, 'a client without a redirect URI: the page');
    });

    test('/logout sits beside a moved OAuth path, where a console finds it from the login root', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { oauthPath: '/login/oauth' } });
      const moved = await app.request('GET', '/login/logout', { token: null });
      assert.equal(moved.status, 200);
      assert.match(moved.body, /You are signed out/);
      assert.equal((await app.request('GET', '/logout', { token: null })).status, 404);
    });
  });
}
