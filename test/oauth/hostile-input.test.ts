import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply } from '../helpers/app.ts';
import { nestedJson } from '../helpers/nested-json.ts';
import { authorizeFields, form, givePassword, PASSWORD, pkcePair, postSignIn, signInForCode, tokenRequest } from './helpers.ts';

const NUL = 'a\u0000b';

/** RFC 6749 5.2: a 400 `invalid_request` with a description, as JSON. */
function assertTokenRefusal(res: Reply, what: string, description: RegExp) {
  assert.equal(res.status, 400, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error, 'invalid_request', what);
  assert.match(res.body.error_description, description, what);
}

/** The authorization endpoint's refusal that cannot go back to a client: a 400 page naming `invalid_request`. */
function assertPageRefusal(res: Reply, what: string, description: RegExp) {
  assert.equal(res.status, 400, `${what}: ${res.status} ${String(res.body).slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /text\/html/, what);
  assert.match(res.body, /<code>invalid_request<\/code>/, what);
  assert.match(res.body, description, what);
}

for (const dialect of DIALECTS) {
  describe(`hostile input to the OAuth endpoints [${dialect}]`, () => {
    test('a JSON body nested 8 000 levels deep is a 400 invalid_request, without credentials', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const json = { 'content-type': 'application/json' };
      for (const shape of ['object', 'array'] as const) {
        const body = nestedJson(8_000, shape);
        const token = await app.request('POST', '/oauth/token', { token: null, headers: json, body });
        assertTokenRefusal(token, `token, ${shape}`, /Nested more than 64 levels/);
        const page = await app.request('POST', '/oauth/authorize', { token: null, headers: json, body });
        assertPageRefusal(page, `authorize, ${shape}`, /Nested more than 64 levels/);
      }
    });

    test('a NUL in any parameter of the token endpoint is a 400 invalid_request naming it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const { verifier, challenge } = pkcePair();
      const code = await signInForCode(app, { username: owner.username, challenge });
      const exchange = {
        grant_type: 'authorization_code',
        code,
        client_id: 'cumulo-console',
        redirect_uri: authorizeFields({ username: '' }).redirect_uri,
        code_verifier: verifier,
      };
      const refresh = { grant_type: 'refresh_token', refresh_token: 'r'.repeat(64), client_id: 'cumulo-console', scope: '*' };
      const cases: [Record<string, string | undefined>, string][] = [
        ...(['code', 'client_id', 'redirect_uri', 'code_verifier', 'grant_type'] as const).map(
          (name): [Record<string, string | undefined>, string] => [{ ...exchange, [name]: `${exchange[name]}\u0000` }, name],
        ),
        ...(['refresh_token', 'client_id', 'scope'] as const).map((name): [Record<string, string | undefined>, string] => [
          { ...refresh, [name]: `${refresh[name]}\u0000` },
          name,
        ]),
      ];
      for (const [fields, name] of cases) {
        assertTokenRefusal(await tokenRequest(app, fields), name, new RegExp(`^${name}: .*NUL`));
      }
      const spent = await tokenRequest(app, exchange);
      assert.equal(spent.status, 200, 'the refused requests left the code unspent');
    });

    test('a NUL in any parameter of the authorization endpoint is a 400 page naming it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      await givePassword(app, owner.username);
      const { challenge } = pkcePair();
      const fields = {
        ...authorizeFields({ username: owner.username, challenge }),
        username: owner.username,
        password: PASSWORD,
      };
      const names = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'username', 'password'];
      for (const name of names) {
        const body = form({ ...fields, scope: '*', [name]: NUL });
        const posted = await app.request('POST', '/oauth/authorize', {
          token: null,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        assertPageRefusal(posted, `POST ${name}`, new RegExp(`${name}: .*NUL`));
        const shown = await app.request('GET', `/oauth/authorize?${body}`, { token: null });
        assertPageRefusal(shown, `GET ${name}`, new RegExp(`${name}: .*NUL`));
      }
      const signedIn = await postSignIn(app, { username: owner.username, challenge });
      assert.equal(signedIn.status, 302, 'the same request without the NUL signs in');
    });
  });
}
