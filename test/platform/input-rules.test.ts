import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import { closeObjects, MAX_BODY_DEPTH, withEchoedFields } from '../../src/http/input-rules.ts';
import { INT32_MAX } from '../../src/http/schemas.ts';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply, type TestApp } from '../helpers/app.ts';
import { nestedJson } from '../helpers/nested-json.ts';
import { createEmptyNode, createNode, getNode } from '../nodes/helpers.ts';
import { operatorApp } from '../operator/helpers.ts';

/** A 400 whose one error names `field`. */
function assertRefused(res: Reply, field: string, what: string) {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
  assert.deepEqual(
    res.body.errors.map((e: { field?: string }) => e.field),
    [field],
    `${what}: ${JSON.stringify(res.body)}`,
  );
}

/** A 2xx whose Warning header names exactly `fields` as ignored. */
function assertIgnored(res: Reply, fields: string[], what: string) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.headers.warning, `299 - "ignored unknown fields: ${fields.join(', ')}"`, what);
}

async function count(app: TestApp, url: string): Promise<number> {
  const res = await app.request('GET', url);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.results;
}

/** A node with a config and a disk (from an image), for config and disk requests. */
async function nodeWithDisks(app: TestApp) {
  const node = await createNode(app);
  const disks = await app.request('GET', `/v4/node/instances/${node.id}/disks`);
  return { node, diskId: disks.body.data[0].id as number };
}

test('closing request bodies closes every object but free-form maps; the top level takes the answer fields', () => {
  const body = Type.Object({
    data: Type.Record(Type.String(), Type.Unknown()),
    nested: Type.Object({ a: Type.Optional(Type.Integer()) }),
    list: Type.Array(Type.Object({ b: Type.String() })),
  });
  const answer = { 200: Type.Object({ id: Type.Integer(), data: Type.Unknown(), nested: Type.Unknown() }) };
  // biome-ignore lint/suspicious/noExplicitAny: a plain JSON schema, read by key
  const closed = closeObjects(withEchoedFields(body, answer)) as Record<string, any>;
  assert.equal(closed.additionalProperties, false);
  assert.deepEqual(Object.keys(closed.properties).sort(), ['data', 'id', 'list', 'nested']);
  assert.deepEqual(closed.properties.id, {}, 'an answer field may be sent back with any value');
  assert.equal(closed.properties.nested.additionalProperties, false, 'the body declares nested itself');
  assert.equal(closed.properties.list.items.additionalProperties, false);
  assert.equal(closed.properties.data.additionalProperties, undefined);
  assert.equal('additionalProperties' in body.properties.nested, false, 'the route schema itself is untouched');
  assert.equal('additionalProperties' in body, false);
});

for (const dialect of DIALECTS) {
  describe(`path and query integers [${dialect}]`, () => {
    test('only a canonical decimal integer is an id: every other spelling is a 404 and touches nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const id = node.id as number;
      const spellings = [
        `0x${id.toString(16)}`,
        `+${id}`,
        `0${id}`,
        `%20${id}`,
        `${id}%20`,
        `${id}e0`,
        `${id}.0`,
        `${id}abc`,
        `-${id}`,
      ];
      for (const s of spellings) {
        assert.equal((await app.request('GET', `/v4/node/instances/${s}`)).status, 404, `GET ${s}`);
        assert.equal((await app.request('DELETE', `/v4/node/instances/${s}`)).status, 404, `DELETE ${s}`);
        const put = await app.request('PUT', `/v4/node/instances/${s}`, { body: { label: 'renamed' } });
        assert.equal(put.status, 404, `PUT ${s}`);
      }
      const same = await getNode(app, id);
      assert.equal(same.label, node.label);
      assert.equal((await app.request('GET', `/v4/node/instances/${id}`)).status, 200);
      assert.equal((await app.request('GET', '/v4/profile/tokens/1')).status, 200);
      for (const s of ['01', '0x1', 'abc', '1.0']) {
        assert.equal((await app.request('GET', `/v4/profile/tokens/${s}`)).status, 404, `token ${s}`);
      }
    });

    test('ids out of range are a 404; page numbers out of range a 400 naming page', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const url of [
        '/v4/account/events/2147483648',
        '/v4/node/instances/2147483648',
        '/v4/node/instances/99999999999999999999',
        '/v4/profile/sshkeys/2147483648',
        '/v4/node/stackscripts/9223372036854775808',
      ]) {
        assert.equal((await app.request('GET', url)).status, 404, url);
      }
      assertRefused(await app.request('GET', '/v4/regions?page=100000000000000000'), 'page', 'a huge page');
      assertRefused(await app.request('GET', '/v4/account/events?page=2147483648'), 'page', 'page past int32');
      const last = await app.request('GET', `/v4/regions?page=${INT32_MAX}`);
      assert.equal(last.status, 200);
      assert.deepEqual(last.body.data, []);
      assert.equal(last.body.page, INT32_MAX);
    });

    test('query integers take only the canonical spelling: 400 naming the field', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [string, string][] = [
        ['page=0x1', 'page'],
        ['page=+1', 'page'],
        ['page=01', 'page'],
        ['page=1.0', 'page'],
        ['page=%201', 'page'],
        ['page_size=1e2', 'page_size'],
        ['page_size=', 'page_size'],
      ];
      for (const [query, field] of cases) {
        assertRefused(await app.request('GET', `/v4/regions?${query}`), field, query);
      }
      assert.equal((await app.request('GET', '/v4/regions?page=1&page_size=25')).status, 200);
    });

    test('a stats year or month out of range stays a 400 naming it; a bad node id there is a 404', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      assertRefused(await app.request('GET', `/v4/node/instances/${node.id}/stats/2030/13`), 'month', 'month 13');
      assertRefused(await app.request('GET', `/v4/node/instances/${node.id}/transfer/1999/1`), 'year', 'year 1999');
      assert.equal((await app.request('GET', `/v4/node/instances/0x${node.id}/stats/2030/1`)).status, 404);
    });
  });

  describe(`request body integers within their columns [${dialect}]`, () => {
    test('integers beyond 2147483647 are a 400 naming the field, never a 500', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { node, diskId } = await nodeWithDisks(app);
      const big = 2 ** 31;
      const base = `/v4/node/instances/${node.id}`;
      const cases: [string, string, unknown, string][] = [
        ['POST', `${base}/disks`, { size: big, label: 'big' }, 'size'],
        ['POST', `${base}/disks`, { size: 1e300, label: 'bigger' }, 'size'],
        ['POST', `${base}/disks/${diskId}/resize`, { size: big }, 'size'],
        ['PUT', base, { alerts: { cpu: big } }, 'alerts.cpu'],
        ['PUT', base, { alerts: { io: 1e20 } }, 'alerts.io'],
        ['POST', `${base}/configs`, { label: 'c', devices: {}, memory_limit: big }, 'memory_limit'],
        ['POST', `${base}/configs`, { label: 'c', devices: { sda: { disk_id: big } } }, 'devices.sda.disk_id'],
        ['POST', `${base}/boot`, { config_id: big }, 'config_id'],
        ['POST', `${base}/clone`, { node_id: big }, 'node_id'],
        ['POST', '/v4/node/instances', { region: 'us-east', type: 'g6-standard-1', swap_size: big }, 'swap_size'],
        ['POST', '/v4/images', { disk_id: big }, 'disk_id'],
      ];
      const disks = await count(app, `${base}/disks`);
      const configs = await count(app, `${base}/configs`);
      for (const [method, url, body, field] of cases) {
        assertRefused(await app.request(method, url, { body }), field, `${method} ${url} ${JSON.stringify(body)}`);
      }
      assert.equal(await count(app, `${base}/disks`), disks);
      assert.equal(await count(app, `${base}/configs`), configs);
      assert.equal((await getNode(app, node.id)).alerts.cpu, node.alerts.cpu);
    });
  });

  describe(`unknown keys in request bodies [${dialect}]`, () => {
    test('at any depth are ignored and named in a Warning header; known fields keep their checks', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await admin(app);
      const user = await newUser(app, owner.accountId, { restricted: true });
      const grants = `/v4/account/users/${user.username}/grants`;
      const granted = await app.request('PUT', grants, { body: { global: { add_nodes: true, nope: true } } });
      assertIgnored(granted, ['global.nope'], 'grants with a known key too');
      assert.equal((await app.request('GET', grants)).body.global.add_nodes, true);

      const { node, diskId } = await nodeWithDisks(app);
      const configs = `/v4/node/instances/${node.id}/configs`;
      const plain = { devices: { sda: { disk_id: diskId } }, interfaces: [{ purpose: 'public' }] };
      const withExtras = await app.request('POST', configs, {
        body: {
          label: 'extras',
          devices: { sda: { disk_id: diskId, extra: 1 }, sdz: { disk_id: diskId } },
          interfaces: [{ purpose: 'public', vpc: 1 }],
        },
      });
      assertIgnored(withExtras, ['devices.sda.extra', 'devices.sdz', 'interfaces[0].vpc'], 'config');
      const without = await app.request('POST', configs, { body: { label: 'plain', ...plain } });
      assert.equal(without.status, 200, JSON.stringify(without.body));
      assert.equal(without.headers.warning, undefined, 'nothing ignored, no warning');
      // Interface ids follow the config's id; the rest of each interface must match.
      const strip = ({ id: _id, label: _label, interfaces, ...rest }: Record<string, unknown>) => ({
        ...rest,
        interfaces: (interfaces as Record<string, unknown>[]).map(({ id: _interfaceId, ...shown }) => shown),
      });
      assert.deepEqual(strip(withExtras.body), strip(without.body), 'the ignored keys change nothing');

      const alerts = await app.request('PUT', `/v4/node/instances/${node.id}`, { body: { alerts: { cpu: 50, memory: 1 } } });
      assertIgnored(alerts, ['alerts.memory'], 'node alerts');
      assert.equal(alerts.body.alerts.cpu, 50);

      // Beside an unknown key, a known one with a wrong value is still refused, and nothing is made.
      const before = await count(app, configs);
      assertRefused(
        await app.request('POST', configs, { body: { label: 'x', devices: { sda: { disk_id: 'one', extra: 1 } } } }),
        'devices.sda.disk_id',
        'a bad known key beside an unknown one',
      );
      assert.equal(await count(app, configs), before);
    });

    test('the top level: what the operation answers with is taken back silently; any other key is ignored and named', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const whole = await getNode(app, node.id);
      const put = await app.request('PUT', `/v4/node/instances/${node.id}`, { body: { ...whole, label: 'sent-back' } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.label, 'sent-back');
      assert.equal(put.body.id, node.id, 'read-only fields sent back change nothing');
      assert.equal(put.headers.warning, undefined, 'fields of the answer are not unknown');

      const owner = await admin(app);
      const user = await newUser(app, owner.accountId, { restricted: true });
      const grants = `/v4/account/users/${user.username}/grants`;
      const read = await app.request('GET', grants);
      const back = await app.request('PUT', grants, { body: read.body });
      assert.equal(back.status, 200, JSON.stringify(back.body));

      const typo = await app.request('PUT', `/v4/node/instances/${node.id}`, { body: { lable: 'typo', state: 'present' } });
      assertIgnored(typo, ['lable', 'state'], 'node update');
      assert.equal((await getNode(app, node.id)).label, 'sent-back', 'an ignored key changes nothing');
      const token = await app.request('POST', '/v4/profile/tokens', { body: { label: 'ok', scope: 'nodes:read_only' } });
      assertIgnored(token, ['scope'], 'token create');
      assert.equal(token.body.scopes, '*', 'the misspelt scope is not taken');
      const regrant = await app.request('PUT', grants, { body: { ...read.body, globals: {} } });
      assertIgnored(regrant, ['globals'], 'grants');
    });

    test('the Warning header names at most 20 fields, in printable ASCII', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const body: Record<string, unknown> = { label: 'many-extras' };
      for (let i = 0; i < 25; i += 1) body[`x${i}`] = i;
      body['ü"q'] = 1;
      const res = await app.request('POST', '/v4/profile/tokens', { body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const warning = String(res.headers.warning);
      assert.match(warning, /^299 - "ignored unknown fields: x0, x1, .*x19 and 6 more"$/);
      const odd = await app.request('POST', '/v4/profile/tokens', { body: { label: 'odd', 'ü"q': 1 } });
      assert.equal(odd.headers.warning, '299 - "ignored unknown fields: ?\\"q"');
    });
  });

  describe(`the NUL character [${dialect}]`, () => {
    test('in a body string at any depth is a 400 naming the field, and nothing is stored', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { node } = await nodeWithDisks(app);
      const nul = 'a\u0000b';
      const cases: [string, string, unknown, string][] = [
        ['POST', '/v4/profile/tokens', { label: nul }, 'label'],
        ['POST', '/v4/node/stackscripts', { label: nul, images: ['node/debian12'], script: '#!/bin/sh\n' }, 'label'],
        ['POST', '/v4/node/stackscripts', { label: 'ok', images: ['node/debian12'], script: `#!/bin/sh\n${nul}` }, 'script'],
        ['POST', `/v4/node/instances/${node.id}/configs`, { label: nul, devices: {} }, 'label'],
        [
          'POST',
          `/v4/node/instances/${node.id}/configs`,
          { label: 'c', devices: {}, interfaces: [{ purpose: 'vlan', label: nul }] },
          'interfaces[0].label',
        ],
        ['POST', '/v4/node/instances', { region: 'us-east', type: 'g6-standard-1', image: `node/debian12${'\u0000'}` }, 'image'],
        ['POST', '/v4/node/instances', { region: 'us-east', type: 'g6-standard-1', tags: ['ok-tag', nul] }, 'tags[1]'],
        ['PUT', `/v4/node/instances/${node.id}`, { label: nul }, 'label'],
        ['POST', '/v4/profile/tokens', { [`la${'\u0000'}bel`]: 'x' }, 'la\\u0000bel'],
      ];
      const tokens = await count(app, '/v4/profile/tokens');
      const scripts = await count(app, '/v4/node/stackscripts?page_size=25');
      const nodes = await count(app, '/v4/node/instances');
      for (const [method, url, body, field] of cases) {
        const res = await app.request(method, url, { body });
        assertRefused(res, field, `${method} ${url}`);
        assert.match(res.body.errors[0].reason, /NUL/);
      }
      assert.equal(await count(app, '/v4/profile/tokens'), tokens);
      assert.equal(await count(app, '/v4/node/stackscripts?page_size=25'), scripts);
      assert.equal(await count(app, '/v4/node/instances'), nodes);
      assert.equal((await getNode(app, node.id)).label, node.label);
    });

    test('in a query value is a 400 naming it; in a path value a 404; in X-Filter a 400 naming X-Filter', async (t) => {
      const app = await buildTestApp(t, { dialect });
      assertRefused(await app.request('GET', '/v4/regions?anything=a%00b'), 'anything', 'an unknown query parameter');
      assertRefused(await app.request('GET', '/v4/node/instances?page=1%00'), 'page', 'a known one');
      for (const url of [
        '/v4/account/users/ad%00min',
        '/v4/images/private%2F1%00',
        '/v4/images/node/debian12%00',
        '/v4/profile/tokens/1%00',
        '/v4/node/kernels/node%2Fgrub2%00',
      ]) {
        const res = await app.request('GET', url);
        assert.equal(res.status, 404, `${url}: ${JSON.stringify(res.body)}`);
        assert.ok(Array.isArray(res.body.errors));
      }
      for (const filter of [
        '{"label": "a\\u0000"}',
        '{"la\\u0000bel": "a"}',
        '{"tags": "a\\u0000"}',
        '{"+order_by": "la\\u0000bel"}',
      ]) {
        const res = await app.request('GET', '/v4/node/instances', { headers: { 'x-filter': filter } });
        assertRefused(res, 'X-Filter', filter);
      }
    });
  });

  test(`a body nested deeper than ${MAX_BODY_DEPTH} levels is a 400 in the envelope, on v4 and admin routes [${dialect}]`, async (t) => {
    const app = await operatorApp(t, dialect);
    const json = { 'content-type': 'application/json' };
    const withinLimit = await app.request('PUT', '/v4/profile', { headers: json, body: nestedJson(MAX_BODY_DEPTH, 'object') });
    assertIgnored(withinLimit, ['a'], `${MAX_BODY_DEPTH} levels`);
    for (const depth of [MAX_BODY_DEPTH + 1, 8_000]) {
      for (const shape of ['object', 'array'] as const) {
        const body = nestedJson(depth, shape);
        for (const res of [
          await app.request('PUT', '/v4/profile', { headers: json, body }),
          await app.request('POST', '/v4/profile/tokens', { headers: json, body }),
          await app.admin('PUT', '/admin/transitions/node_boot', { headers: json, body }),
        ]) {
          assertRefused(res, 'body', `${depth} levels of ${shape}`);
          assert.match(res.body.errors[0].reason, /Nested more than 64 levels/);
        }
      }
    }
  });

  test(`every integer a request can carry declares a maximum within the columns [${dialect}]`, async (t) => {
    const app = await buildTestApp(t, { dialect });
    const doc = (await app.request('GET', '/v4/openapi.json')).body;
    const unbounded: string[] = [];
    const walk = (schema: unknown, where: string): void => {
      if (Array.isArray(schema)) {
        for (const [i, s] of schema.entries()) walk(s, `${where}[${i}]`);
        return;
      }
      if (typeof schema !== 'object' || schema === null) return;
      const s = schema as Record<string, unknown>;
      if (s.type === 'integer' && !(typeof s.maximum === 'number' && s.maximum <= INT32_MAX)) unbounded.push(where);
      for (const [key, value] of Object.entries(s)) if (key !== 'enum' && key !== 'default') walk(value, `${where}.${key}`);
    };
    // biome-ignore lint/suspicious/noExplicitAny: the API document, read by key
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const p of op.parameters ?? []) walk(p.schema, `${method} ${path} ${p.in} ${p.name}`);
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
          walk((media as { schema: unknown }).schema, `${method} ${path} body ${type}`);
        }
      }
    }
    assert.deepEqual(unbounded, []);
  });
}
