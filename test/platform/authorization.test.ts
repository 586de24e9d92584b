import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RouteEntry } from '../../src/app.ts';
import { SCOPE_RESOURCES, type Scope } from '../../src/domain/profile/scopes.ts';
import { admin, type Caller, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { FIXTURES, VALID_BODIES } from '../helpers/fixtures.ts';

function params(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
}

/** A scope set that misses every scope the route needs. */
function scopesWithout(needed: readonly Scope[]): string {
  const resources = new Set(needed.map((s) => s.split(':')[0]));
  const other = SCOPE_RESOURCES.find((r) => !resources.has(r));
  return `${other}:read_write`;
}

async function fill(app: TestApp, route: RouteEntry, owner: Caller): Promise<string> {
  let url = route.url;
  for (const p of params(route.url)) {
    const fixture = FIXTURES[p];
    assert.ok(fixture, `no fixture for path parameter :${p} (${route.method} ${route.url}); add one to test/helpers/fixtures.ts`);
    url = url.replace(`:${p}`, encodeURIComponent(await fixture(app, owner)));
  }
  return url.replace('/*', '/private/none');
}

function bodyFor(route: RouteEntry): unknown {
  if (route.method === 'GET' || route.method === 'DELETE') return undefined;
  return (route.operationId && VALID_BODIES[route.operationId]) ?? {};
}

for (const dialect of DIALECTS) {
  describe(`authorization matrix over every route [${dialect}]`, () => {
    test('401 without a valid token, 403 without the scope or grant, 404 for another account', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const table = app.runtime.app?.routeTable ?? [];
      assert.ok(table.length > 10, 'the route table is populated');
      const mine = await newUser(app, (await admin(app)).accountId);
      const restricted = await newUser(app, mine.accountId, { restricted: true });
      const expired = await newUser(app, mine.accountId, { expiry: '2001-01-01T00:00:00' });
      const other = await newAccount(app);
      const checked: string[] = [];

      for (const route of table) {
        const name = `${route.method} ${route.url}`;
        const access = route.access;
        if ('public' in access) {
          const url = route.url.replace(/:[A-Za-z]+|\*/g, 'anything');
          const res = await app.request(route.method, url, { token: null });
          assert.notEqual(res.status, 401, `${name} is public`);
          continue;
        }
        const url = await fill(app, route, mine);
        const body = bodyFor(route);
        if (!access.optional) {
          const anonymous = await app.request(route.method, url, { token: null, body });
          assert.equal(anonymous.status, 401, `${name} without a token`);
          assert.ok(anonymous.body.errors[0].reason, `${name}: 401 in the envelope`);
        }
        const bogus = await app.request(route.method, url, { token: 'not-a-real-token', body });
        assert.equal(bogus.status, 401, `${name} with an unknown token`);
        const stale = await app.request(route.method, url, { token: expired.token, body });
        assert.equal(stale.status, 401, `${name} with an expired token`);

        if (access.scopes.length > 0) {
          const narrow = await newUser(app, mine.accountId, { scopes: scopesWithout(access.scopes) });
          const res = await app.request(route.method, url, { token: narrow.token, body });
          assert.equal(res.status, 403, `${name} with a token lacking ${access.scopes.join(' ')}`);
        }
        if (access.grant === 'unrestricted') {
          const res = await app.request(route.method, url, { token: restricted.token, body });
          assert.equal(res.status, 403, `${name} as a restricted user`);
        }
        if (params(route.url).length > 0 || route.url.endsWith('/*')) {
          const theirs = await fill(app, route, other);
          const res = await app.request(route.method, theirs, { token: mine.token, body });
          assert.equal(res.status, 404, `${name} on another account's object: ${JSON.stringify(res.body)}`);
        }
        checked.push(name);
      }
      assert.ok(checked.length > 5, `authenticated routes checked: ${checked.length}`);
    });
  });
}
