import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { addRecord, createDomain, domainBody } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`domain grants [${dialect}]`, () => {
    test('a restricted user adds domains with add_domains and gets read_write on them; others by the grants object', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const theirs = await createDomain(app);
      const record = await addRecord(app, theirs.id, { type: 'A', name: 'www', target: '192.0.2.1' });
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grants = `/v4/account/users/${bob.username}/grants`;
      const as = (method: string, url: string, body?: unknown) =>
        app.request(method, url, { token: bob.token, ...(body === undefined ? {} : { body }) });

      assert.equal((await as('POST', '/v4/domains', domainBody())).status, 403, 'no add_domains');
      assert.equal((await as('GET', `/v4/domains/${theirs.id}`)).status, 404, 'no grant: not seen');
      assert.equal((await as('GET', `/v4/domains/${theirs.id}/records`)).status, 404);
      assert.equal((await as('GET', '/v4/domains')).body.results, 0);

      await app.request('PUT', grants, { body: { global: { add_domains: true } } });
      const own = await as('POST', '/v4/domains', domainBody());
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.equal((await as('POST', `/v4/domains/${own.body.id}/records`, { type: 'TXT', target: 'mine' })).status, 200);
      const listed = await app.request('GET', grants);
      assert.deepEqual(
        listed.body.domain.map((g: { id: number; label: string; permissions: string | null }) => [g.id, g.label, g.permissions]),
        [
          [theirs.id, theirs.domain, null],
          [own.body.id, own.body.domain, 'read_write'],
        ],
      );

      const readOnly = await app.request('PUT', grants, { body: { domain: [{ id: theirs.id, permissions: 'read_only' }] } });
      assert.equal(readOnly.status, 200, JSON.stringify(readOnly.body));
      assert.equal((await as('GET', `/v4/domains/${theirs.id}`)).status, 200);
      assert.equal((await as('GET', `/v4/domains/${theirs.id}/records/${record.id}`)).status, 200);
      assert.equal((await as('GET', `/v4/domains/${theirs.id}/zone-file`)).status, 200);
      assert.equal((await as('PUT', `/v4/domains/${theirs.id}`, { description: 'x' })).status, 403);
      assert.equal((await as('POST', `/v4/domains/${theirs.id}/records`, { type: 'TXT', target: 'x' })).status, 403);
      assert.equal((await as('DELETE', `/v4/domains/${theirs.id}/records/${record.id}`)).status, 403);
      assert.equal((await as('POST', `/v4/domains/${theirs.id}/clone`, { domain: 'bob-copy.example' })).status, 403);
      assert.equal((await as('GET', '/v4/domains')).body.results, 2);

      await app.request('PUT', grants, { body: { domain: [{ id: theirs.id, permissions: 'read_write' }] } });
      assert.equal((await as('POST', `/v4/domains/${theirs.id}/clone`, { domain: 'bob-copy.example' })).status, 200);
      await app.request('PUT', grants, { body: { global: { add_domains: false } } });
      const noAdd = await as('POST', `/v4/domains/${theirs.id}/clone`, { domain: 'bob-copy2.example' });
      assert.equal(noAdd.status, 403, 'a clone is a new domain: add_domains');
      assert.equal((await as('DELETE', `/v4/domains/${theirs.id}`)).status, 200);
      const after = await app.request('GET', grants);
      assert.ok(!after.body.domain.some((g: { id: number }) => g.id === theirs.id), 'a deleted domain leaves the grants');
    });
  });
}
