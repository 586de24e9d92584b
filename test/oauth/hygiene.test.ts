import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { authorizeFields, CONSOLE, form, givePassword, PASSWORD, postSignIn, redirectQuery } from './helpers.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

for (const dialect of DIALECTS) {
  describe(`OAuth hygiene (RFC 6749, 7636, 9700) [${dialect}]`, () => {
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
