import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { addRecord, createDomain, domainBody, eventsOf, fieldsOf, freshDomain, renderedZone } from './helpers.ts';

const URL = '/v4/domains';

for (const dialect of DIALECTS) {
  describe(`domains [${dialect}]`, () => {
    test('create, view, list: the reference shape, defaults, the name in lower case, event dns_zone_create', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const name = freshDomain();
      const created = await createDomain(app, { domain: name.toUpperCase() });
      assert.deepEqual(created, {
        id: created.id,
        type: 'master',
        domain: name,
        group: '',
        status: 'active',
        description: '',
        soa_email: 'hostmaster@example.org',
        retry_sec: 0,
        master_ips: [],
        axfr_ips: [],
        expire_sec: 0,
        refresh_sec: 0,
        ttl_sec: 0,
        tags: [],
        created: created.created,
        updated: created.created,
        errors: '',
      });
      assert.match(created.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      assert.deepEqual((await app.request('GET', `${URL}/${created.id}`)).body, created);
      const list = await app.request('GET', URL);
      assert.deepEqual(list.body, { data: [created], page: 1, pages: 1, results: 1 });
      const [event] = await eventsOf(app, me.accountId, 'dns_zone_create');
      assert.deepEqual(
        [event?.entity_type, event?.entity_id, event?.entity_label, event?.entity_url, event?.status],
        ['domain', created.id, name, `/v4/domains/${created.id}`, 'notification'],
      );
      assert.equal((await app.request('GET', `${URL}/999999`)).status, 404);
    });

    test('domain syntax: RFC 1035 host labels of at most 63 characters, two or more, 255 characters at most', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const label63 = 'a'.repeat(63);
      const refused = [
        'example',
        '-bad.example',
        'bad-.example',
        'under_score.example',
        'exa mple.example',
        'a..example',
        'example.com.',
        '*.example.com',
        'example.123',
        `${'a'.repeat(64)}.example`,
        `${label63}.${label63}.${label63}.${label63}.example`,
        '',
      ];
      for (const domain of refused) {
        const res = await app.request('POST', URL, { body: domainBody({ domain }) });
        assert.equal(res.status, 400, `${domain}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(fieldsOf(res.body), ['domain'], domain);
      }
      for (const domain of [`${label63}.example`, 'xn--bcher-kva.example', 'a.b-c.d9.example', '2.0.192.in-addr.arpa']) {
        const res = await app.request('POST', URL, { body: domainBody({ domain }) });
        assert.equal(res.status, 200, `${domain}: ${JSON.stringify(res.body)}`);
      }
    });

    test('a name is unique across the installation: another account, or another case, is a 400 on domain', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const other = await newAccount(app);
      const name = freshDomain();
      await createDomain(app, { domain: name }, other.token);
      for (const domain of [name, name.toUpperCase()]) {
        const res = await app.request('POST', URL, { body: domainBody({ domain }) });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.deepEqual(fieldsOf(res.body), ['domain']);
      }
      assert.equal((await app.request('GET', URL)).body.results, 0);
    });

    test('type: a master needs soa_email, a slave a master IP; master_ips and axfr_ips hold IP addresses', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [Record<string, unknown>, string[]][] = [
        [{ soa_email: undefined }, ['soa_email']],
        [{ type: 'slave', soa_email: undefined }, ['master_ips']],
        [{ type: 'secondary' }, ['type']],
        [{ type: undefined }, ['type']],
        [{ soa_email: 'not-an-email' }, ['soa_email']],
        [{ soa_email: `${'x'.repeat(64)}@example.org` }, ['soa_email']],
        [{ soa_email: 'semi;colon@example.org' }, ['soa_email']],
        [{ soa_email: 'admin@localhost' }, ['soa_email']],
        [{ soa_email: '' }, ['soa_email']],
        [{ master_ips: ['192.0.2.1', 'ns1.example.org'] }, ['master_ips[1]']],
        [{ axfr_ips: ['192.0.2.300'] }, ['axfr_ips[0]']],
        [{ axfr_ips: ['192.0.2.0/24'], master_ips: ['x'] }, ['master_ips[0]', 'axfr_ips[0]']],
      ];
      for (const [overrides, fields] of cases) {
        const res = await app.request('POST', URL, { body: domainBody(overrides) });
        assert.equal(res.status, 400, `${JSON.stringify(overrides)}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(fieldsOf(res.body), fields, JSON.stringify(overrides));
      }
      const slave = await createDomain(app, { type: 'slave', soa_email: '', master_ips: ['192.0.2.1', '2001:db8::53'] });
      assert.deepEqual([slave.type, slave.soa_email, slave.master_ips], ['slave', '', ['192.0.2.1', '2001:db8::53']]);
      const master = await createDomain(app, { axfr_ips: ['198.51.100.7', '2001:db8::7'] });
      assert.deepEqual(master.axfr_ips, ['198.51.100.7', '2001:db8::7']);
      assert.equal((await app.request('GET', URL)).body.results, 2);
    });

    test('status active (default) or disabled; description 1..255 and group 1..50 characters', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const disabled = await createDomain(app, { status: 'disabled', description: 'd'.repeat(255), group: 'g'.repeat(50) });
      assert.deepEqual([disabled.status, disabled.description.length, disabled.group.length], ['disabled', 255, 50]);
      const cases: [Record<string, unknown>, string][] = [
        [{ status: 'edit_mode' }, 'status'],
        [{ description: '' }, 'description'],
        [{ description: 'd'.repeat(256) }, 'description'],
        [{ group: '' }, 'group'],
        [{ group: 'g'.repeat(51) }, 'group'],
      ];
      for (const [overrides, field] of cases) {
        const res = await app.request('POST', URL, { body: domainBody(overrides) });
        assert.equal(res.status, 400, JSON.stringify(overrides));
        assert.deepEqual(fieldsOf(res.body), [field]);
      }
    });

    test('expire, refresh, retry and ttl seconds: 0 stays (the default), others round up to a valid value', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const rounded: [number, number][] = [
        [0, 0],
        [1, 300],
        [300, 300],
        [301, 3600],
        [1000, 3600],
        [4000, 7200],
        [86401, 172800],
        [90000, 172800],
        [2419200, 2419200],
        [99999999, 2419200],
      ];
      for (const [sent, stored] of rounded) {
        const domain = await createDomain(app, { expire_sec: sent, refresh_sec: sent, retry_sec: sent, ttl_sec: sent });
        assert.deepEqual(
          [domain.expire_sec, domain.refresh_sec, domain.retry_sec, domain.ttl_sec],
          [stored, stored, stored, stored],
          `${sent}`,
        );
      }
      const id = (await createDomain(app, { refresh_sec: 3600 })).id;
      const updated = await app.request('PUT', `${URL}/${id}`, { body: { ttl_sec: 4000 } });
      assert.deepEqual([updated.body.ttl_sec, updated.body.refresh_sec], [7200, 3600], 'what was not sent is kept');
      const soa = (await renderedZone(app, id)).find((line) => / IN SOA /.test(line))?.split(/\s+/);
      assert.deepEqual(
        [soa?.[1], ...(soa?.slice(7) ?? [])],
        ['7200', '3600', '14400', '1209600', '7200'],
        '0 serves the default',
      );
      for (const field of ['expire_sec', 'refresh_sec', 'retry_sec', 'ttl_sec']) {
        const negative = await app.request('POST', URL, { body: domainBody({ [field]: -1 }) });
        assert.deepEqual([negative.status, fieldsOf(negative.body)], [400, [field]]);
      }
    });

    test('update: the fields sent over the stored ones, checked whole; rename under the same uniqueness; event dns_zone_update', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const domain = await createDomain(app);
      const taken = await createDomain(app);
      const put = (body: unknown) => app.request('PUT', `${URL}/${domain.id}`, { body });

      const slave = await put({ type: 'slave' });
      assert.deepEqual([slave.status, fieldsOf(slave.body)], [400, ['master_ips']]);
      const clash = await put({ domain: taken.domain.toUpperCase() });
      assert.deepEqual([clash.status, fieldsOf(clash.body)], [400, ['domain']]);
      assert.equal((await eventsOf(app, me.accountId, 'dns_zone_update')).length, 0, 'refusals record nothing');

      const name = freshDomain('renamed');
      const res = await put({
        domain: name,
        type: 'slave',
        master_ips: ['192.0.2.53'],
        description: 'moved',
        status: 'disabled',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        [res.body.domain, res.body.type, res.body.master_ips, res.body.description, res.body.status, res.body.soa_email],
        [name, 'slave', ['192.0.2.53'], 'moved', 'disabled', 'hostmaster@example.org'],
      );
      assert.deepEqual((await app.request('GET', `${URL}/${domain.id}`)).body, res.body);
      const [event] = await eventsOf(app, me.accountId, 'dns_zone_update');
      assert.deepEqual([event?.entity_id, event?.entity_label], [domain.id, name]);
      assert.equal((await put({ domain: domain.domain })).status, 200, 'the old name is free again');
    });

    test('delete removes the domain and every record; event dns_zone_delete; the name is free again', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const domain = await createDomain(app);
      const record = await addRecord(app, domain.id, { type: 'A', name: 'www', target: '192.0.2.1' });
      await addRecord(app, domain.id, { type: 'TXT', target: 'hello' });
      assert.equal((await app.request('DELETE', `${URL}/${domain.id}`)).status, 200);
      assert.equal((await app.request('GET', `${URL}/${domain.id}`)).status, 404);
      assert.equal((await app.request('GET', `${URL}/${domain.id}/records/${record.id}`)).status, 404);
      const left = await app.runtime.ctx.db
        .selectFrom('domain_records')
        .select('id')
        .where('domain_id', '=', domain.id)
        .execute();
      assert.deepEqual(left, []);
      const [event] = await eventsOf(app, me.accountId, 'dns_zone_delete');
      assert.deepEqual([event?.entity_id, event?.entity_label], [domain.id, domain.domain]);
      assert.equal((await app.request('DELETE', `${URL}/${domain.id}`)).status, 404);
      await createDomain(app, { domain: domain.domain });
    });

    test("tags: set on create and update (unrestricted users only), in the account's tag storage", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const domain = await createDomain(app, { tags: ['web', 'prod'] });
      assert.deepEqual(domain.tags, ['prod', 'web']);
      const res = await app.request('PUT', `${URL}/${domain.id}`, { body: { tags: ['web', 'staging'] } });
      assert.deepEqual(res.body.tags, ['staging', 'web']);
      const labels = await app.runtime.ctx.db.selectFrom('tags').select('label').where('account_id', '=', me.accountId).execute();
      assert.ok(labels.some((l) => l.label === 'staging'));
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grants = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { global: { add_domains: true }, domain: [{ id: domain.id, permissions: 'read_write' }] },
      });
      assert.equal(grants.status, 200, JSON.stringify(grants.body));
      const tagged = await app.request('POST', URL, { token: bob.token, body: domainBody({ tags: ['mine'] }) });
      assert.equal(tagged.status, 403);
      const retag = await app.request('PUT', `${URL}/${domain.id}`, { token: bob.token, body: { tags: ['other'] } });
      assert.equal(retag.status, 403);
      const same = await app.request('PUT', `${URL}/${domain.id}`, { token: bob.token, body: { tags: ['web', 'staging'] } });
      assert.equal(same.status, 200, 'sending the same tags back is no change');
    });

    test('X-Filter on domain, group and tags; other fields refused; page_size 25..500', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createDomain(app, { group: 'blue', tags: ['edge'] });
      const b = await createDomain(app, { group: 'green' });
      const ids = async (filter: unknown) => {
        const res = await app.request('GET', URL, { headers: { 'x-filter': JSON.stringify(filter) } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.data.map((d: { id: number }) => d.id);
      };
      assert.deepEqual(await ids({ domain: a.domain }), [a.id]);
      assert.deepEqual(await ids({ domain: a.domain.toUpperCase() }), [a.id], 'names match in any case, as DNS names do');
      assert.deepEqual(await ids({ domain: { '+contains': a.domain.toUpperCase() } }), [a.id]);
      assert.deepEqual(await ids({ group: 'green' }), [b.id]);
      assert.deepEqual(await ids({ tags: 'edge' }), [a.id]);
      assert.deepEqual(
        await ids({ '+order_by': 'domain', '+order': 'desc' }),
        [a, b].sort((x, y) => (x.domain < y.domain ? 1 : -1)).map((d) => d.id),
      );
      const bad = await app.request('GET', URL, { headers: { 'x-filter': '{"soa_email": "x"}' } });
      assert.deepEqual([bad.status, fieldsOf(bad.body)], [400, ['X-Filter']]);
      assert.equal((await app.request('GET', `${URL}?page_size=24`)).status, 400);
      assert.equal((await app.request('GET', `${URL}?page_size=501`)).status, 400);
      assert.equal((await app.request('GET', `${URL}?page_size=25`)).body.results, 2);
    });
  });
}
