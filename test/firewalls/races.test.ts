import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply } from '../helpers/app.ts';
import { eventsOf } from '../identity/helpers.ts';
import { createEmptyNode } from '../nodes/helpers.ts';
import { createFirewall, setStatus } from './helpers.ts';

const URL = '/v4/networking/firewalls';

function tally(replies: readonly Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

for (const dialect of DIALECTS) {
  describe(`parallel firewall requests [${dialect}]`, () => {
    test('two firewalls on one node enabled at once by 10 requests each: exactly one ends enabled', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const a = await createFirewall(app);
      const b = await createFirewall(app);
      for (const fw of [a, b]) {
        await setStatus(app, fw.id, 'disabled');
        const res = await app.request('POST', `${URL}/${fw.id}/devices`, { body: { id: node.id, type: 'node' } });
        assert.equal(res.status, 200);
      }
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.request('PUT', `${URL}/${i % 2 ? a.id : b.id}`, { body: { status: 'enabled' } }),
        ),
      );
      const seen = tally(replies);
      assert.ok(
        replies.every((r) => r.status === 200 || r.status === 400),
        JSON.stringify(seen),
      );
      for (const r of replies.filter((x) => x.status === 400)) assert.equal(r.body.errors[0].field, 'status');
      const statuses = await Promise.all([a, b].map(async (fw) => (await app.request('GET', `${URL}/${fw.id}`)).body.status));
      assert.deepEqual(
        statuses.filter((s) => s === 'enabled'),
        ['enabled'],
        `exactly one enabled: ${JSON.stringify(statuses)} ${JSON.stringify(seen)}`,
      );
      assert.equal((await eventsOf(app, me.accountId, 'firewall_enable')).length, 1, 'one enable happened');
    });

    test('20 parallel deletes of one firewall: one 200, the others 404, one firewall_delete event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const fw = await createFirewall(app, { devices: { nodes: [node.id] }, tags: ['racy'] });
      const replies = await Promise.all(Array.from({ length: 20 }, () => app.request('DELETE', `${URL}/${fw.id}`)));
      assert.deepEqual(tally(replies), { 200: 1, 404: 19 });
      for (const r of replies.filter((x) => x.status === 404)) assert.ok(r.body.errors[0].reason);
      assert.equal((await app.request('GET', `${URL}/${fw.id}`)).status, 404);
      assert.equal((await eventsOf(app, me.accountId, 'firewall_delete')).length, 1);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/firewalls`)).body.results, 0);
    });

    test('parallel device adds of two enabled firewalls to one node: exactly one is assigned', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const a = await createFirewall(app);
      const b = await createFirewall(app);
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          app.request('POST', `${URL}/${i % 2 ? a.id : b.id}/devices`, { body: { id: node.id, type: 'node' } }),
        ),
      );
      assert.deepEqual(tally(replies), { 200: 1, 400: 9 });
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/firewalls`)).body.results, 1);
    });
  });
}
