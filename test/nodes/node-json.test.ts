import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, createNode } from './helpers.ts';

async function ok(app: TestApp, method: string, url: string, body?: unknown) {
  const res = await app.request(method, url, body === undefined ? {} : { body });
  assert.equal(res.status, 200, `${method} ${url}: ${JSON.stringify(res.body)}`);
  return res;
}

/** A read's body as the service wrote it. */
async function rawText(app: TestApp, url: string, headers: Record<string, string> = {}) {
  const res = await app.runtime.app?.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
  });
  assert.equal(res?.statusCode, 200, url);
  return String(res?.body);
}

/**
 * Every node of the list against its own view (an object through NodeSchema's serializer): the same
 * fields, values and order, and the same text byte for byte, however the page was written.
 */
async function assertListMatchesViews(app: TestApp, filter?: unknown) {
  const res = await app.request(
    'GET',
    '/v4/node/instances?page_size=25',
    filter ? { headers: { 'x-filter': JSON.stringify(filter) } } : {},
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/);
  assert.deepEqual(Object.keys(res.body), ['data', 'page', 'pages', 'results']);
  assert.ok(res.body.data.length > 0);
  const pageText = await rawText(app, '/v4/node/instances?page_size=25', filter ? { 'x-filter': JSON.stringify(filter) } : {});
  for (const listed of res.body.data) {
    const view = (await ok(app, 'GET', `/v4/node/instances/${listed.id}`)).body;
    assert.deepEqual(listed, view);
    assert.deepEqual(JSON.stringify(listed), JSON.stringify(view), `node ${listed.id}: the fields in the view's order`);
    const viewText = await rawText(app, `/v4/node/instances/${listed.id}`);
    assert.ok(pageText.includes(viewText), `node ${listed.id}: the page holds the view's text`);
  }
  return res.body;
}

for (const dialect of DIALECTS) {
  describe(`a page of nodes written as JSON text [${dialect}]`, () => {
    test('each node of a page is its view, field for field, whatever the node holds', async (t) => {
      const app = await buildTestApp(t, { dialect });
      // From an image, with tags, a public IPv4 and SLAAC IPv6; empty, with none of those.
      const full = await createNode(app, { label: 'full-1', tags: ['web', 'prod'] });
      const empty = await createEmptyNode(app, { label: 'empty-1' });
      // Every field that can change, changed; backups on; the watchdog off.
      await ok(app, 'PUT', `/v4/node/instances/${empty.id}`, {
        group: 'grp',
        tags: ['quote"d', 'back\\slash', 'ünïcode'],
        watchdog_enabled: false,
        alerts: { cpu: 150, io: 5000, network_in: 3, network_out: 4, transfer_quota: 55 },
        backups: { schedule: { day: 'Monday', window: 'W4' } },
      });
      await ok(app, 'POST', `/v4/node/instances/${full.id}/backups/enable`);
      // A type the catalog no longer has shows zero specs in both.
      await sql`update nodes set type = 'g0-gone' where id = ${empty.id}`.execute(app.runtime.ctx.db);

      const page = await assertListMatchesViews(app);
      assert.equal(page.results, 2);
      const byId = new Map(page.data.map((n: { id: number }) => [n.id, n]));
      const shown = byId.get(empty.id) as Record<string, unknown>;
      assert.deepEqual(shown.specs, { disk: 0, memory: 0, vcpus: 0, transfer: 0, gpus: 0, accelerated_devices: 0 });
      assert.deepEqual(shown.tags, ['back\\slash', 'quote"d', 'ünïcode']);
      assert.equal(shown.watchdog_enabled, false);
      assert.equal((byId.get(full.id) as { backups: { enabled: boolean } }).backups.enabled, true);
    });

    test('filters, order and pages hold for the written page', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const label of ['c-node', 'a-node', 'b-node']) await createEmptyNode(app, { label, region: 'us-east' });
      await createEmptyNode(app, { label: 'elsewhere', region: 'eu-west' });
      const page = await assertListMatchesViews(app, { region: 'us-east', '+order_by': 'label', '+order': 'desc' });
      assert.deepEqual(
        page.data.map((n: { label: string }) => n.label),
        ['c-node', 'b-node', 'a-node'],
      );
      const second = await app.request('GET', '/v4/node/instances?page=2&page_size=25', {
        headers: { 'x-filter': '{"label": "a-node"}' },
      });
      assert.deepEqual(second.body, { data: [], page: 2, pages: 1, results: 1 });
      const none = await app.request('GET', '/v4/node/instances', { headers: { 'x-filter': '{"label": "nothing"}' } });
      assert.deepEqual(none.body, { data: [], page: 1, pages: 1, results: 0 });
    });
  });
}
