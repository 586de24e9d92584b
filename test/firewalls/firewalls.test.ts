import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf } from '../identity/helpers.ts';
import { createFirewall, fieldsOf, firewallBody, rule } from './helpers.ts';

const URL = '/v4/networking/firewalls';

for (const dialect of DIALECTS) {
  describe(`firewalls [${dialect}]`, () => {
    test('create, list, view, update and delete, each with its event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const created = await app.request('POST', URL, { body: firewallBody({ tags: ['prod'], status: 'disabled', id: 7 }) });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const fw = created.body;
      assert.equal(fw.label, 'edge-fw');
      assert.equal(fw.status, 'enabled', 'a new firewall is enabled; a status sent back is ignored');
      assert.deepEqual(fw.tags, ['prod']);
      assert.deepEqual(fw.rules, {
        inbound: [rule()],
        outbound: [],
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
        version: 1,
        fingerprint: fw.rules.fingerprint,
      });
      assert.match(fw.rules.fingerprint, /^[0-9a-f]{8}$/);
      assert.deepEqual(fw.entities, [], 'assigned to nothing yet');
      assert.deepEqual(Object.keys(fw).sort(), ['created', 'entities', 'id', 'label', 'rules', 'status', 'tags', 'updated']);

      const view = await app.request('GET', `${URL}/${fw.id}`);
      assert.equal(view.status, 200);
      assert.deepEqual(view.body, fw, 'a view has no devices');
      const list = await app.request('GET', URL);
      assert.deepEqual(list.body, { data: [fw], page: 1, pages: 1, results: 1 });

      const renamed = await app.request('PUT', `${URL}/${fw.id}`, { body: { label: 'edge-fw-2', tags: ['prod', 'web'] } });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.label, 'edge-fw-2');
      assert.deepEqual(renamed.body.tags, ['prod', 'web']);
      const disabled = await app.request('PUT', `${URL}/${fw.id}`, { body: { ...renamed.body, status: 'disabled' } });
      assert.equal(disabled.status, 200, 'a firewall read may be sent back with one field changed');
      assert.equal(disabled.body.status, 'disabled');
      const enabled = await app.request('PUT', `${URL}/${fw.id}`, { body: { status: 'enabled' } });
      assert.equal(enabled.body.status, 'enabled');
      const deleted = await app.request('PUT', `${URL}/${fw.id}`, { body: { status: 'deleted' } });
      assert.equal(deleted.status, 400, 'status deleted only through delete');
      assert.deepEqual(fieldsOf(deleted.body), ['status']);
      assert.equal((await app.request('GET', `${URL}/${fw.id}`)).body.status, 'enabled');

      const removed = await app.request('DELETE', `${URL}/${fw.id}`);
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.body, {});
      for (const path of ['', '/rules', '/devices']) {
        assert.equal((await app.request('GET', `${URL}/${fw.id}${path}`)).status, 404, `GET ${path} after delete`);
      }
      assert.equal((await app.request('DELETE', `${URL}/${fw.id}`)).status, 404);
      assert.equal((await app.request('GET', URL)).body.results, 0);

      for (const action of ['firewall_create', 'firewall_update', 'firewall_disable', 'firewall_enable', 'firewall_delete']) {
        const events = await eventsOf(app, me.accountId, action);
        assert.equal(events.length, 1, action);
        assert.equal(events[0]?.entity_type, 'firewall', action);
        assert.equal(events[0]?.entity_id, fw.id, action);
        assert.equal(events[0]?.entity_url, `/v4/networking/firewalls/${fw.id}`, action);
      }
      const shown = await app.request('GET', '/v4/account/events', { headers: { 'x-filter': '{"action":"firewall_delete"}' } });
      assert.equal(shown.body.data[0].entity.label, 'edge-fw-2');
    });

    test('labels: 3..32 characters, letters or digits at both ends, no two of -_. in a row, unique in the account', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const label of ['ab', 'a'.repeat(33), '-abc', 'abc-', '.abc', 'ab--c', 'a_.bc', 'a b c', 'abc!', 'ab\u00e9c']) {
        const res = await app.request('POST', URL, { body: firewallBody({ label }) });
        assert.equal(res.status, 400, label);
        assert.deepEqual(fieldsOf(res.body), ['label'], label);
      }
      for (const label of ['1ab', 'web.v1_x-y', 'a'.repeat(32), 'A9z']) {
        await createFirewall(app, { label });
      }
      const taken = await app.request('POST', URL, { body: firewallBody({ label: '1ab' }) });
      assert.equal(taken.status, 400);
      assert.deepEqual(fieldsOf(taken.body), ['label']);
      const other = await createFirewall(app, { label: 'other' });
      const rename = await app.request('PUT', `${URL}/${other.id}`, { body: { label: '1ab' } });
      assert.equal(rename.status, 400);
      assert.deepEqual(fieldsOf(rename.body), ['label']);
      const badRename = await app.request('PUT', `${URL}/${other.id}`, { body: { label: 'x--y' } });
      assert.deepEqual(fieldsOf(badRename.body), ['label']);
      assert.equal((await app.request('GET', `${URL}/${other.id}`)).body.label, 'other');

      // Another account may use the label; a deleted firewall frees it.
      const stranger = await newAccount(app);
      await createFirewall(app, { label: '1ab' }, stranger.token);
      const first = (await app.request('GET', URL, { headers: { 'x-filter': '{"label":"1ab"}' } })).body.data[0];
      assert.equal((await app.request('DELETE', `${URL}/${first.id}`)).status, 200);
      await createFirewall(app, { label: '1ab' });
    });

    test('create needs rules with both policies; each rule needs protocol, action and addresses', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [Record<string, unknown>, string][] = [
        [{ rules: undefined }, 'rules'],
        [{ rules: { inbound: [], outbound_policy: 'DROP' } }, 'rules.inbound_policy'],
        [{ rules: { inbound: [], inbound_policy: 'DROP' } }, 'rules.outbound_policy'],
        [{ rules: { inbound_policy: 'REJECT', outbound_policy: 'DROP' } }, 'rules.inbound_policy'],
        [
          { rules: { inbound: [rule({ protocol: undefined })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].protocol',
        ],
        [
          { rules: { outbound: [rule({ action: undefined })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.outbound[0].action',
        ],
        [
          { rules: { inbound: [rule({ addresses: undefined })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].addresses',
        ],
        [
          { rules: { inbound: [rule({ protocol: 'IPENCAP' })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].protocol',
        ],
        [
          { rules: { inbound: [rule({ protocol: 'tcp' })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].protocol',
        ],
        [
          { rules: { inbound: [rule({ action: 'REJECT' })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].action',
        ],
        [
          { rules: { inbound: [rule({ label: 'ab' })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].label',
        ],
        [
          { rules: { inbound: [rule({ label: 'a'.repeat(33) })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].label',
        ],
        [
          { rules: { inbound: [rule({ description: '' })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].description',
        ],
        [
          { rules: { inbound: [rule({ description: 'd'.repeat(101) })], inbound_policy: 'DROP', outbound_policy: 'DROP' } },
          'rules.inbound[0].description',
        ],
      ];
      for (const [overrides, field] of cases) {
        const res = await app.request('POST', URL, { body: firewallBody(overrides) });
        assert.equal(res.status, 400, field);
        assert.ok(fieldsOf(res.body).includes(field), `${field}: ${JSON.stringify(res.body)}`);
      }
      const longest = rule({ label: 'a'.repeat(32), description: 'd'.repeat(100) });
      const shortest = rule({ label: 'abc', description: 'd', protocol: 'UDP', ports: '53' });
      const fw = await createFirewall(app, {
        rules: { inbound: [longest], outbound: [shortest], inbound_policy: 'ACCEPT', outbound_policy: 'DROP' },
      });
      assert.deepEqual(fw.rules.outbound, [shortest]);
      const bare = await createFirewall(app, { rules: { inbound_policy: 'DROP', outbound_policy: 'DROP' } });
      assert.deepEqual(bare.rules, {
        inbound: [],
        outbound: [],
        inbound_policy: 'DROP',
        outbound_policy: 'DROP',
        version: 1,
        fingerprint: bare.rules.fingerprint,
      });
      assert.equal((await app.request('GET', URL)).body.results, 2, 'refused requests created nothing');
    });

    test('ports: single, a-b with b > a, comma lists; 1..65535 without leading zeros; at most 15 pieces; TCP and UDP only', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const withPorts = (r: Record<string, unknown>) =>
        firewallBody({ rules: { inbound: [rule(), rule(), r], inbound_policy: 'DROP', outbound_policy: 'DROP' } });
      const fifteen = Array.from({ length: 15 }, (_, i) => String(i + 1)).join(',');
      const sevenRangesAndOne = '1-2,3-4,5-6,7-8,9-10,11-12,13-14,15';
      for (const ports of [
        '22',
        '1',
        '65535',
        '22-24',
        '1-65535',
        '22, 80, 443',
        '22,80',
        '22-24, 80,443',
        fifteen,
        sevenRangesAndOne,
      ]) {
        await createFirewall(app, { rules: withPorts(rule({ ports })).rules });
      }
      const bad = [
        '0',
        '65536',
        '080',
        '22-22',
        '24-22',
        '22 ,80',
        '22,  80',
        ' 22',
        '22 ',
        '22,',
        ',22',
        '22-',
        '-22',
        '22-24-26',
        'a',
        '22;80',
        '',
        `${fifteen},16`,
        `${sevenRangesAndOne},16`,
        '1-2,3-4,5-6,7-8,9-10,11-12,13-14,15-16',
      ];
      for (const ports of bad) {
        const res = await app.request('POST', URL, { body: withPorts(rule({ ports })) });
        assert.equal(res.status, 400, JSON.stringify(ports));
        assert.deepEqual(fieldsOf(res.body), ['rules.inbound[2].ports'], JSON.stringify(ports));
      }
      for (const protocol of ['TCP', 'UDP']) {
        const res = await app.request('POST', URL, { body: withPorts(rule({ protocol, ports: undefined })) });
        assert.equal(res.status, 400, `${protocol} without ports`);
        assert.deepEqual(fieldsOf(res.body), ['rules.inbound[2].ports']);
      }
      const icmpPorts = await app.request('POST', URL, { body: withPorts(rule({ protocol: 'ICMP', ports: '22' })) });
      assert.equal(icmpPorts.status, 400);
      assert.deepEqual(fieldsOf(icmpPorts.body), ['rules.inbound[2].ports']);
      const icmp = await createFirewall(app, { rules: withPorts(rule({ protocol: 'ICMP', ports: undefined })).rules });
      assert.equal(icmp.rules.inbound[2].ports, undefined);
      assert.equal((await app.request('GET', URL)).body.results, 11);
    });

    test('addresses: valid IPv4/IPv6 addresses or networks, at most 255 per rule; at most 25 rules in all', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const one = (r: Record<string, unknown>) =>
        firewallBody({ rules: { inbound: [r], inbound_policy: 'DROP', outbound_policy: 'DROP' } });
      const good = { ipv4: ['0.0.0.0/0', '192.0.2.1', '198.51.100.0/24'], ipv6: ['::/0', '2001:db8::/32', '2001:db8::1'] };
      const fw = await createFirewall(app, { rules: one(rule({ addresses: good })).rules });
      assert.deepEqual(fw.rules.inbound[0].addresses, good);
      const ipv4 = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
      const ipv6 = (n: number) => Array.from({ length: n }, (_, i) => `2001:db8::${(i + 1).toString(16)}`);
      await createFirewall(app, { rules: one(rule({ addresses: { ipv4: ipv4(200), ipv6: ipv6(55) } })).rules });
      const over = await app.request('POST', URL, { body: one(rule({ addresses: { ipv4: ipv4(200), ipv6: ipv6(56) } })) });
      assert.equal(over.status, 400);
      assert.deepEqual(fieldsOf(over.body), ['rules.inbound[0].addresses']);
      const badAddresses: [Record<string, string[]>, string][] = [
        [{ ipv4: ['192.0.2.0/24', 'not-an-ip'] }, 'rules.inbound[0].addresses.ipv4[1]'],
        [{ ipv4: ['2001:db8::/32'] }, 'rules.inbound[0].addresses.ipv4[0]'],
        [{ ipv6: ['192.0.2.0/24'] }, 'rules.inbound[0].addresses.ipv6[0]'],
        [{ ipv4: ['192.0.2.1/24'] }, 'rules.inbound[0].addresses.ipv4[0]'],
        [{ ipv4: ['192.0.2.0/33'] }, 'rules.inbound[0].addresses.ipv4[0]'],
        [{ ipv4: ['256.0.0.1'] }, 'rules.inbound[0].addresses.ipv4[0]'],
        [{ ipv6: ['2001:db8::/129'] }, 'rules.inbound[0].addresses.ipv6[0]'],
        [{ ipv6: ['2001:zz8::1'] }, 'rules.inbound[0].addresses.ipv6[0]'],
      ];
      for (const [addresses, field] of badAddresses) {
        const res = await app.request('POST', URL, { body: one(rule({ addresses })) });
        assert.equal(res.status, 400, JSON.stringify(addresses));
        assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(addresses));
      }

      const rules = (inbound: number, outbound: number) => ({
        inbound: Array.from({ length: inbound }, () => rule()),
        outbound: Array.from({ length: outbound }, () => rule()),
        inbound_policy: 'DROP',
        outbound_policy: 'DROP',
      });
      await createFirewall(app, { rules: rules(20, 5) });
      const tooMany = await app.request('POST', URL, { body: firewallBody({ rules: rules(20, 6) }) });
      assert.equal(tooMany.status, 400);
      assert.deepEqual(fieldsOf(tooMany.body), ['rules.outbound[5]']);
      const oneSide = await app.request('POST', URL, { body: firewallBody({ rules: rules(26, 0) }) });
      assert.equal(oneSide.status, 400);
      assert.equal((await app.request('GET', URL)).body.results, 3);
    });

    test('rules PUT replaces the whole ruleset; a refused one changes nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const fw = await createFirewall(app, {
        rules: {
          inbound: [rule(), rule({ ports: '8080' })],
          outbound: [rule()],
          inbound_policy: 'DROP',
          outbound_policy: 'ACCEPT',
        },
      });
      const url = `${URL}/${fw.id}/rules`;
      assert.deepEqual((await app.request('GET', url)).body, fw.rules);
      const icmp = { protocol: 'ICMP', addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT' };
      const put = await app.request('PUT', url, { body: { inbound: [icmp], inbound_policy: 'ACCEPT' } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      // Both address families are shown, an empty list for the one a rule leaves out; each update is a version.
      const shownIcmp = { ...icmp, addresses: { ipv4: ['0.0.0.0/0'], ipv6: [] } };
      const replaced = {
        inbound: [shownIcmp],
        outbound: [],
        inbound_policy: 'ACCEPT',
        outbound_policy: 'ACCEPT',
        version: 2,
        fingerprint: put.body.fingerprint,
      };
      assert.deepEqual(put.body, replaced, 'rule lists left out are empty; a policy left out stays');
      assert.notEqual(put.body.fingerprint, fw.rules.fingerprint);
      const again = await app.request('PUT', url, { body: { inbound: [icmp] } });
      assert.deepEqual(
        [again.body.version, again.body.fingerprint],
        [3, put.body.fingerprint],
        'the same rules, the same fingerprint',
      );
      await app.request('PUT', url, { body: { inbound: [icmp] } });
      replaced.version = 4;
      assert.deepEqual((await app.request('GET', url)).body, replaced);
      assert.deepEqual((await app.request('GET', `${URL}/${fw.id}`)).body.rules, replaced);

      const refused = await app.request('PUT', url, {
        body: { inbound: [rule(), rule(), rule({ ports: '080' })], outbound: [rule({ addresses: { ipv6: ['nope'] } })] },
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(fieldsOf(refused.body), ['inbound[2].ports', 'outbound[0].addresses.ipv6[0]']);
      const tooMany = await app.request('PUT', url, { body: { inbound: Array.from({ length: 26 }, () => rule()) } });
      assert.equal(tooMany.status, 400);
      const noPolicy = await app.request('PUT', url, { body: { inbound_policy: 'REJECT' } });
      assert.deepEqual(fieldsOf(noPolicy.body), ['inbound_policy']);
      assert.deepEqual((await app.request('GET', url)).body, replaced, 'nothing changed');
      assert.equal((await eventsOf(app, me.accountId, 'firewall_update')).length, 3);
    });

    test('lists: page sizes 25..500, at most 100 a page (default 100); X-Filter on id, label, created, updated and tags', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (let i = 0; i < 27; i += 1)
        await createFirewall(app, { label: `list-${String(i).padStart(2, '0')}`, tags: i % 2 ? ['odd'] : [] });
      const all = await app.request('GET', URL);
      assert.equal(all.body.data.length, 27);
      const page = await app.request('GET', `${URL}?page=2&page_size=25`);
      assert.deepEqual([page.body.data.length, page.body.page, page.body.pages, page.body.results], [2, 2, 2, 27]);
      for (const size of ['24', '501', '0']) {
        const res = await app.request('GET', `${URL}?page_size=${size}`);
        assert.equal(res.status, 400, size);
        assert.deepEqual(fieldsOf(res.body), ['page_size']);
      }
      const filter = async (f: unknown) => (await app.request('GET', URL, { headers: { 'x-filter': JSON.stringify(f) } })).body;
      assert.equal((await filter({ label: 'list-03' })).data[0].label, 'list-03');
      assert.equal((await filter({ tags: 'odd' })).results, 13);
      assert.equal((await filter({ id: all.body.data[5].id })).data[0].id, all.body.data[5].id);
      assert.equal((await filter({ created: { '+gte': all.body.data[0].created } })).results, 27);
      assert.equal((await filter({ '+order_by': 'label', '+order': 'desc' })).data[0].label, 'list-26');
      for (const bad of [{ entities: 1 }, { rules: 1 }, 'nope']) {
        const res = await app.request('GET', URL, { headers: { 'x-filter': JSON.stringify(bad) } });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.deepEqual(fieldsOf(res.body), ['X-Filter']);
      }
    });

    test('restricted users: add_firewalls to create, a grant to see, read_write to change; tags by unrestricted users only', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const other = await newUser(app, me.accountId, { restricted: true });
      const grants = (username: string, body: unknown) => app.request('PUT', `/v4/account/users/${username}/grants`, { body });
      const refused = await app.request('POST', URL, { token: user.token, body: firewallBody() });
      assert.equal(refused.status, 403, 'no add_firewalls grant');
      assert.equal((await grants(user.username, { global: { add_firewalls: true } })).status, 200);
      const tagged = await app.request('POST', URL, { token: user.token, body: firewallBody({ tags: ['xyz'] }) });
      assert.equal(tagged.status, 403, 'tags need an unrestricted user');
      const mine = await app.request('POST', URL, { token: user.token, body: firewallBody() });
      assert.equal(mine.status, 200);
      const url = `${URL}/${mine.body.id}`;
      assert.equal(
        (await app.request('PUT', url, { token: user.token, body: { status: 'disabled' } })).status,
        200,
        'the creator holds read_write',
      );

      const theirs = await createFirewall(app, { label: 'admins-only' });
      assert.equal((await app.request('GET', `${URL}/${theirs.id}`, { token: user.token })).status, 404);
      assert.equal((await app.request('GET', url, { token: other.token })).status, 404);
      assert.equal((await app.request('GET', URL, { token: other.token })).body.results, 0);
      // The reference's grants object has no firewall list: a firewall grant other than the creator's is written directly.
      const db = app.runtime.ctx.db;
      await db
        .insertInto('entity_grants')
        .values({
          account_id: me.accountId,
          user_id: other.userId,
          entity_type: 'firewall',
          entity_id: mine.body.id,
          permissions: 'read_only',
        })
        .execute();
      const view = await app.request('GET', url, { token: other.token });
      assert.equal(view.status, 200);
      assert.deepEqual(
        (await app.request('GET', URL, { token: other.token })).body.data.map((f: { id: number }) => f.id),
        [mine.body.id],
      );
      for (const [method, path, body] of [
        ['PUT', '', { label: 'renamed' }],
        ['PUT', '/rules', { inbound: [] }],
        ['DELETE', '', undefined],
      ] as const) {
        const res = await app.request(method, `${url}${path}`, { token: other.token, ...(body ? { body } : {}) });
        assert.equal(res.status, 403, `${method} ${path} with read_only`);
      }
      assert.equal((await app.request('DELETE', url)).status, 200);
      const left = await db.selectFrom('entity_grants').selectAll().where('entity_type', '=', 'firewall').execute();
      assert.deepEqual(left, [], 'a deleted firewall leaves no grant');
    });
  });
}
