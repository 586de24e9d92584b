import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';

async function addContact(app: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await app.request('POST', '/v4/managed/contacts', { body, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, `add contact ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function groupsListed(app: TestApp, filter?: unknown): Promise<(string | null)[]> {
  const res = await app.request('GET', '/v4/managed/contacts', filter ? { headers: { 'x-filter': JSON.stringify(filter) } } : {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((c: { group: string | null }) => c.group);
}

for (const dialect of DIALECTS) {
  describe(`managed contacts [${dialect}]`, () => {
    test('no field is required; an update changes what it names; delete removes the contact', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const empty = await addContact(app, {});
      assert.deepEqual(
        { ...empty, updated: undefined },
        { id: empty.id, name: null, email: null, phone: { primary: null, secondary: null }, group: null, updated: undefined },
      );
      assert.match(empty.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

      const full = await addContact(app, {
        name: 'Ada Lovelace',
        email: 'ada@example.org',
        phone: { primary: '+44 20 7946 0018', secondary: null },
        group: 'on-call',
      });
      assert.deepEqual(
        [full.name, full.email, full.phone, full.group],
        ['Ada Lovelace', 'ada@example.org', { primary: '+44 20 7946 0018', secondary: null }, 'on-call'],
      );
      assert.deepEqual((await app.request('GET', `/v4/managed/contacts/${full.id}`)).body, full);

      const changed = await app.request('PUT', `/v4/managed/contacts/${full.id}`, {
        body: { phone: { secondary: '(555) 010-0199' }, group: null },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(
        [changed.body.name, changed.body.email, changed.body.phone, changed.body.group],
        ['Ada Lovelace', 'ada@example.org', { primary: '+44 20 7946 0018', secondary: '(555) 010-0199' }, null],
      );
      assert.deepEqual((await app.request('GET', `/v4/managed/contacts/${full.id}`)).body, changed.body);

      const list = await app.request('GET', '/v4/managed/contacts');
      assert.deepEqual(
        list.body.data.map((c: { id: number }) => c.id),
        [empty.id, full.id],
      );
      assert.deepEqual([list.body.page, list.body.pages, list.body.results], [1, 1, 2]);

      const gone = await app.request('DELETE', `/v4/managed/contacts/${empty.id}`);
      assert.equal(gone.status, 200);
      assert.deepEqual(gone.body, {});
      assert.equal((await app.request('GET', `/v4/managed/contacts/${empty.id}`)).status, 404);
      assert.equal((await app.request('PUT', `/v4/managed/contacts/${empty.id}`, { body: { name: 'Again' } })).status, 404);
      assert.equal((await app.request('DELETE', `/v4/managed/contacts/${empty.id}`)).status, 404);
      assert.equal((await app.request('GET', '/v4/managed/contacts')).body.results, 1);
    });

    test('bad values are a 400 naming the field, and change nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const contact = await addContact(app, { name: 'Grace Hopper', email: 'grace@example.org', group: 'ops' });
      const bad: [Record<string, unknown>, string][] = [
        [{ name: 'G' }, 'name'],
        [{ name: 'x'.repeat(65) }, 'name'],
        [{ name: '   ' }, 'name'],
        [{ email: 'not an address' }, 'email'],
        [{ phone: { primary: 'call me' } }, 'phone.primary'],
        [{ phone: { secondary: '1'.repeat(33) } }, 'phone.secondary'],
        [{ phone: { fax: '123', primary: 'call me' } }, 'phone.primary'],
        [{ group: 'g' }, 'group'],
        [{ group: 'g'.repeat(51) }, 'group'],
        [{ nmae: 'typo', name: 'G' }, 'name'],
      ];
      for (const [body, field] of bad) {
        for (const [method, url] of [
          ['POST', '/v4/managed/contacts'],
          ['PUT', `/v4/managed/contacts/${contact.id}`],
        ] as const) {
          const res = await app.request(method, url, { body });
          assert.equal(res.status, 400, `${method} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
          assert.ok(
            res.body.errors.some((e: { field?: string }) => e.field === field),
            `${method} ${JSON.stringify(body)} names ${field}: ${JSON.stringify(res.body)}`,
          );
        }
      }
      const list = await app.request('GET', '/v4/managed/contacts');
      assert.deepEqual(list.body.data, [contact], 'nothing made or changed');
      const longest = await addContact(app, { name: 'n'.repeat(64), group: 'g'.repeat(50), phone: { primary: '1'.repeat(32) } });
      assert.equal(longest.name.length, 64);
    });

    test('X-Filter on group, null included', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await addContact(app, { group: 'on-call' });
      await addContact(app, { group: 'billing' });
      await addContact(app, {});
      await addContact(app, { group: 'on-call' });
      assert.deepEqual(await groupsListed(app, { group: 'on-call' }), ['on-call', 'on-call']);
      assert.deepEqual(await groupsListed(app, { group: null }), [null]);
      assert.deepEqual(await groupsListed(app, { group: { '+neq': 'on-call' } }), ['billing', null]);
      assert.deepEqual(await groupsListed(app, { '+order_by': 'group', '+order': 'asc' }), [
        'billing',
        'on-call',
        'on-call',
        null,
      ]);
      const refused = await app.request('GET', '/v4/managed/contacts', {
        headers: { 'x-filter': JSON.stringify({ name: 'x' }) },
      });
      assert.equal(refused.status, 400, 'name is not filterable');
      assert.equal(refused.body.errors[0].field, 'X-Filter');
    });

    test('each account has its own contacts; restricted users have none to see', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const mine = await addContact(app, { name: 'Mine' });
      const other = await newAccount(app);
      const theirs = await addContact(app, { name: 'Theirs' }, other.token);
      assert.deepEqual(
        (await app.request('GET', '/v4/managed/contacts', { token: other.token })).body.data.map((c: { id: number }) => c.id),
        [theirs.id],
      );
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { name: 'Stolen' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await app.request(method, `/v4/managed/contacts/${mine.id}`, {
          token: other.token,
          ...(body ? { body } : {}),
        });
        assert.equal(res.status, 404, `${method} another account's contact`);
      }
      const restricted = await newUser(app, (await admin(app)).accountId, { restricted: true });
      assert.equal((await app.request('GET', '/v4/managed/contacts', { token: restricted.token })).status, 403);
      assert.equal((await app.request('POST', '/v4/managed/contacts', { token: restricted.token, body: {} })).status, 403);
      assert.equal((await app.request('GET', `/v4/managed/contacts/${mine.id}`)).body.name, 'Mine');
    });
  });
}
