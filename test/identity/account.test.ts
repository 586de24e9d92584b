import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, tokenFor } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`account [${dialect}]`, () => {
    test('view shows the account of the caller', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/account');
      assert.equal(res.status, 200);
      assert.equal(res.body.email, 'admin@example.com');
      assert.match(res.body.euuid, /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
      assert.equal(res.body.balance, 0);
      assert.equal(res.body.country, 'US');
      assert.deepEqual(res.body.active_promotions, []);
      assert.ok(res.body.capabilities.includes('Nodes'));
      assert.match(res.body.active_since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      const stranger = await newAccount(app);
      const theirs = await app.request('GET', '/v4/account', { token: stranger.token });
      assert.equal(theirs.body.email, `${stranger.username}@example.com`);
      assert.notEqual(theirs.body.euuid, res.body.euuid);
    });

    test('update changes editable fields, ignores read-only ones and records account_update', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const before = (await app.request('GET', '/v4/account')).body;
      const changes = {
        first_name: 'Ada',
        last_name: 'Lovelace',
        company: 'Engines Ltd',
        address_1: '1 Analytical Way',
        address_2: 'Floor 2',
        city: 'London',
        state: 'Greater London',
        zip: 'EC1A 1BB',
        country: 'gb',
        phone: '+44 20 7946 0000',
        tax_id: 'GB123456789',
        email: 'ada@example.com',
      };
      const res = await app.request('PUT', '/v4/account', {
        body: { ...changes, balance: 1000, euuid: 'x', active_since: '2000-01-01T00:00:00', capabilities: [] },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { ...before, ...changes, country: 'GB' });
      assert.deepEqual((await app.request('GET', '/v4/account')).body, res.body);
      const [event] = await eventsOf(app, me.accountId, 'account_update');
      assert.equal(event?.entity_type, 'account');
      assert.equal(event?.entity_id, me.accountId);
      assert.equal(event?.entity_label, 'Engines Ltd');
      assert.equal(event?.entity_url, '/v4/account');
      const stranger = await newAccount(app);
      const theirs = await app.request('GET', '/v4/account', { token: stranger.token });
      assert.equal(theirs.body.company, '', "another account's record is untouched");
    });

    test('update checks lengths and formats', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [unknown, string][] = [
        [{ address_1: 'x'.repeat(65) }, 'address_1'],
        [{ address_2: 'x'.repeat(65) }, 'address_2'],
        [{ city: 'x'.repeat(25) }, 'city'],
        [{ company: 'x'.repeat(129) }, 'company'],
        [{ country: 'USA' }, 'country'],
        [{ country: '1A' }, 'country'],
        [{ email: 'nope' }, 'email'],
        [{ first_name: 'x'.repeat(51) }, 'first_name'],
        [{ last_name: 'x'.repeat(51) }, 'last_name'],
        [{ phone: '1'.repeat(33) }, 'phone'],
        [{ state: 'x'.repeat(25) }, 'state'],
        [{ tax_id: 'x'.repeat(101) }, 'tax_id'],
        [{ zip: '1234567890' }, 'zip'],
        [{ zip: '12345$' }, 'zip'],
        [{ city: 5 }, 'city'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('PUT', '/v4/account', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
      }
      const many = await app.request('PUT', '/v4/account', { body: { city: 'x'.repeat(25), zip: '!' } });
      assert.deepEqual(many.body.errors.map((e: { field: string }) => e.field).sort(), ['city', 'zip']);
      const ok = await app.request('PUT', '/v4/account', { body: { zip: '19102-1234', company: 'x'.repeat(128) } });
      assert.equal(ok.status, 200);
      assert.equal((await eventsOf(app, (await admin(app)).accountId, 'account_update')).length, 1);
    });

    test('scopes: view needs account:read_only, update account:read_write', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const reader = await tokenFor(app, me, { scopes: 'account:read_only' });
      const other = await tokenFor(app, me, { scopes: 'nodes:read_write' });
      assert.equal((await app.request('GET', '/v4/account', { token: null })).status, 401);
      assert.equal((await app.request('GET', '/v4/account', { token: other })).status, 403);
      assert.equal((await app.request('GET', '/v4/account', { token: reader })).status, 200);
      assert.equal((await app.request('PUT', '/v4/account', { token: reader, body: { city: 'Oslo' } })).status, 403);
      assert.equal((await app.request('PUT', '/v4/account', { token: null, body: {} })).status, 401);
    });
  });
}
