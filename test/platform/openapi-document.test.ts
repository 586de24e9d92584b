import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { admin, tokenFor } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { type JsonObject, type OperationRef, oauthScopes, operationName, operationsOf } from '../helpers/openapi-compare.ts';

async function fetchDocument(app: TestApp): Promise<JsonObject> {
  const res = await app.request('GET', '/v4/openapi.json', { token: null });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /application\/json/);
  return res.body as JsonObject;
}

/** The operation's path with made-up values for its parameters: ids that exist nowhere. */
function concreteUrl({ path, op }: OperationRef): string {
  const params = Array.isArray(op.parameters) ? (op.parameters as JsonObject[]) : [];
  return `/v4${path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const schema = params.find((p) => p.name === name && p.in === 'path')?.schema as JsonObject | undefined;
    return schema?.type === 'integer' ? '987654' : 'no-such-thing';
  })}`;
}

/** A token of the bootstrap user holding exactly these scopes. */
async function tokenWith(app: TestApp, scopes: readonly string[]): Promise<string> {
  return tokenFor(app, await admin(app), { label: `probe-${scopes.join('-') || 'none'}`, scopes: scopes.join(' ') });
}

/** A scope no in-scope operation asks for: a token holding only it is valid but may do nothing scoped. */
const UNRELATED_SCOPE = 'volumes:read_only';

describe('the generated API document', () => {
  test('is a valid OpenAPI 3 document', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const doc = await fetchDocument(app);
    assert.match(String(doc.openapi), /^3\.0\.\d+$/);
    const result = await new Validator().validate(doc);
    assert.ok(result.valid, `OpenAPI validation errors:\n${JSON.stringify(result.errors, null, 2)}`);
  });

  test('lists only v4 operations, relative to the /v4 and /v4beta servers, each with a unique operationId', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const doc = await fetchDocument(app);
    assert.deepEqual(doc.servers, [{ url: '/v4' }, { url: '/v4beta' }]);
    const operations = operationsOf(doc);
    assert.ok(operations.length > 0);
    const paths = Object.keys(doc.paths as JsonObject);
    for (const path of paths) {
      assert.ok(!/^\/(v4|healthz|readyz|metrics|docs|openapi\.json)(\/|$)/.test(path), `${path} is not a v4 resource path`);
    }
    const ids = new Map<string, string>();
    const fastify = app.runtime.app;
    assert.ok(fastify);
    for (const o of operations) {
      const name = operationName(o.method, o.path);
      const id = o.op.operationId;
      assert.ok(typeof id === 'string' && id !== '', `${name} has no operationId`);
      assert.ok(!ids.has(id), `${name} and ${ids.get(id)} share the operationId ${id}`);
      ids.set(id, name);
      const url = concreteUrl(o);
      const method = o.method.toUpperCase() as 'GET';
      assert.ok(fastify.findRoute({ method, url }), `${name} is in the document but the app serves no ${method} ${url}`);
    }
  });

  test('serves a docs page', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const res = await app.request('GET', '/docs', { token: null });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(String(res.body), /<html/i);
  });
});

for (const dialect of DIALECTS) {
  describe(`each operation's security is what the app enforces [${dialect}]`, () => {
    test('no token, a token without the scope, and a token with exactly the listed scopes', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const operations = operationsOf(await fetchDocument(app));
      const unrelated = await tokenWith(app, [UNRELATED_SCOPE]);
      for (const o of operations) {
        await t.test(operationName(o.method, o.path), async () => {
          const name = operationName(o.method, o.path);
          const url = concreteUrl(o);
          const security = Array.isArray(o.op.security) ? (o.op.security as JsonObject[]) : null;
          assert.ok(security, `${name} has no security entry (public operations list an empty one)`);
          const scopes = oauthScopes(o.op);
          const anonymousAllowed = security.length === 0 || security.some((s) => Object.keys(s).length === 0);
          if (scopes) {
            assert.ok(
              security.some((s) => Array.isArray(s.personalAccessToken)),
              `${name}: a personal access token is listed beside oauth`,
            );
          }

          const anonymous = await app.request(o.method, url, { token: null });
          if (anonymousAllowed) assert.notEqual(anonymous.status, 401, `${name} lists anonymous access but answers 401`);
          else assert.equal(anonymous.status, 401, `${name} needs a token by its security but answers ${anonymous.status}`);
          if (!scopes) return;

          assert.ok(!scopes.has(UNRELATED_SCOPE), `${UNRELATED_SCOPE} was meant to be unused`);
          const without = await app.request(o.method, url, { token: unrelated });
          if (scopes.size === 0) {
            assert.ok(
              ![401, 403].includes(without.status),
              `${name} lists no scope but refuses a valid token (${without.status})`,
            );
            return;
          }
          assert.equal(
            without.status,
            403,
            `${name} lists ${[...scopes].join(' ')} but a token without it gets ${without.status}`,
          );
          const exact = await app.request(o.method, url, { token: await tokenWith(app, [...scopes]) });
          assert.ok(
            ![401, 403].includes(exact.status),
            `${name}: a token with exactly ${[...scopes].join(' ')} is refused (${exact.status}): ${JSON.stringify(exact.body)}`,
          );
        });
      }
    });
  });
}
