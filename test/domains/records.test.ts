import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { addRecord, createDomain, eventsOf, fieldsOf, renderedZone } from './helpers.ts';

/** A fresh domain and a way to post records to it. */
async function zone(app: TestApp) {
  const domain = await createDomain(app);
  const url = `/v4/domains/${domain.id}/records`;
  return {
    domain,
    url,
    post: (body: Record<string, unknown>) => app.request('POST', url, { body }),
    add: (body: Record<string, unknown>) => addRecord(app, domain.id, body),
  };
}

/** Each body refused with a 400 naming exactly `fields`, and nothing stored. */
async function refuses(app: TestApp, url: string, cases: [Record<string, unknown>, string[]][]) {
  for (const [body, fields] of cases) {
    const res = await app.request('POST', url, { body });
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  assert.equal((await app.request('GET', url)).body.results, 0, 'a refusal stores nothing');
}

for (const dialect of DIALECTS) {
  describe(`domain records [${dialect}]`, () => {
    test('A and AAAA: an address, no trailing period, whose family makes the type; [remote_addr] is the caller', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await refuses(app, z.url, [
        [{ type: 'A', name: 'www' }, ['target']],
        [{ type: 'A', target: '192.0.2.1.' }, ['target']],
        [{ type: 'A', target: 'www.example.org' }, ['target']],
        [{ type: 'AAAA', target: '2001:db8::1.' }, ['target']],
        [{ type: 'AAAA', target: '2001:db8::g' }, ['target']],
        [{ type: 'TYPE99', target: 'x' }, ['type']],
      ]);
      const a = await z.add({ type: 'A', name: 'WWW', target: '192.0.2.1' });
      assert.deepEqual(
        { ...a, id: 0, created: '', updated: '' },
        {
          id: 0,
          type: 'A',
          name: 'www',
          target: '192.0.2.1',
          priority: 0,
          weight: 0,
          port: 0,
          service: null,
          protocol: null,
          ttl_sec: 0,
          tag: null,
          created: '',
          updated: '',
        },
      );
      assert.equal((await z.add({ type: 'AAAA', target: '2001:DB8::1' })).target, '2001:db8::1');
      assert.equal((await z.add({ type: 'A', name: 'me', target: '[remote_addr]' })).target, '127.0.0.1');
      assert.deepEqual((await app.request('GET', `${z.url}/${a.id}`)).body, a);

      // Either type takes either family, as the live service's (its console adds every A/AAAA record as AAAA).
      const v4 = await z.add({ type: 'AAAA', name: 'v4', target: '192.0.2.7' });
      assert.deepEqual([v4.type, v4.target], ['A', '192.0.2.7']);
      const v6 = await z.add({ type: 'A', name: 'v6', target: '2001:DB8::7' });
      assert.deepEqual([v6.type, v6.target], ['AAAA', '2001:db8::7']);
      const caller = await z.add({ type: 'AAAA', name: 'caller', target: '[remote_addr]' });
      assert.deepEqual([caller.type, caller.target], ['A', '127.0.0.1']);
      const moved = await app.request('PUT', `${z.url}/${v4.id}`, { body: { target: '2001:db8::8' } });
      assert.deepEqual([moved.status, moved.body.type, moved.body.target], [200, 'AAAA', '2001:db8::8']);
    });

    test('names: 100 characters at most, DNS labels, the domain written out or @ is the domain itself', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await refuses(app, z.url, [
        [{ type: 'A', name: 'x'.repeat(101), target: '192.0.2.1' }, ['name']],
        [{ type: 'A', name: 'a b', target: '192.0.2.1' }, ['name']],
        [{ type: 'A', name: 'a..b', target: '192.0.2.1' }, ['name']],
        [{ type: 'A', name: 'www.*', target: '192.0.2.1' }, ['name']],
        [{ type: 'A', name: `${'x'.repeat(64)}`, target: '192.0.2.1' }, ['name']],
      ]);
      const names = [
        'Api',
        `mail.${z.domain.domain}.`,
        z.domain.domain.toUpperCase(),
        '@',
        '*',
        '*.dev',
        '_dmarc',
        'x'.repeat(63),
      ];
      const stored = [];
      for (const name of names) stored.push((await z.add({ type: 'TXT', name, target: 'v' })).name);
      assert.deepEqual(stored, ['api', 'mail', '', '', '*', '*.dev', '_dmarc', 'x'.repeat(63)]);
    });

    test('NS, CNAME, MX, PTR, SRV targets: host names, a trailing period taken off, a single label is in the domain', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await refuses(app, z.url, [
        [{ type: 'NS', name: 'sub' }, ['target']],
        [{ type: 'NS', name: 'sub', target: 'ns 1.example.org' }, ['target']],
        [{ type: 'CNAME', name: 'www', target: 'a..example.org' }, ['target']],
        [{ type: 'PTR', name: '4', target: '-' }, ['target']],
        [{ type: 'MX', target: `${'m'.repeat(64)}.example.org` }, ['target']],
      ]);
      const own = z.domain.domain;
      assert.equal((await z.add({ type: 'NS', name: 'sub', target: 'NS1.Example.ORG.' })).target, 'ns1.example.org');
      assert.equal((await z.add({ type: 'CNAME', name: 'www', target: 'web' })).target, `web.${own}`);
      assert.equal((await z.add({ type: 'PTR', name: '4', target: 'host.example.org.' })).target, 'host.example.org');
      assert.equal((await z.add({ type: 'MX', target: 'mail', priority: 10 })).target, `mail.${own}`);
      const srv = { type: 'SRV', service: 'sip', priority: 1, weight: 5, port: 5060 };
      assert.equal((await z.add({ ...srv, target: 'sip' })).target, `sip.${own}`);
      assert.equal((await z.add({ ...srv, protocol: 'udp', target: 'sip.example.org.' })).target, 'sip.example.org');
    });

    test('MX: priority 0..255 (default 0); a null MX (empty target, priority 0) is the only MX of its name', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await refuses(app, z.url, [
        [{ type: 'MX', target: 'mx.example.org', priority: 256 }, ['priority']],
        [{ type: 'MX', target: 'mx.example.org', priority: -1 }, ['priority']],
        [{ type: 'MX', target: '', priority: 10 }, ['priority']],
        [{ type: 'MX', priority: 10 }, ['target']],
      ]);
      assert.equal((await z.add({ type: 'MX', target: 'mx.example.org' })).priority, 0);
      const taken = await z.post({ type: 'MX', target: '' });
      assert.deepEqual([taken.status, fieldsOf(taken.body)], [400, ['target']]);
      const nullMx = await z.add({ type: 'MX', name: 'nomail', target: '' });
      assert.deepEqual([nullMx.target, nullMx.priority], ['', 0]);
      const after = await z.post({ type: 'MX', name: 'nomail', target: 'mx.example.org', priority: 5 });
      assert.deepEqual([after.status, fieldsOf(after.body)], [400, ['target']]);
    });

    test('SRV: service, priority, weight and port required; service and protocol shown with their underscore', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      const srv = { type: 'SRV', service: 'sip', priority: 10, weight: 20, port: 5060, target: 'sip.example.org' };
      await refuses(app, z.url, [
        [{ ...srv, service: undefined }, ['service']],
        [{ ...srv, priority: undefined }, ['priority']],
        [{ ...srv, weight: undefined, port: undefined }, ['weight', 'port']],
        [{ ...srv, port: 65536 }, ['port']],
        [{ ...srv, weight: -1 }, ['weight']],
        [{ ...srv, service: 's p' }, ['service']],
        [{ ...srv, protocol: 'u.d.p' }, ['protocol']],
      ]);
      const tcp = await z.add({ ...srv, name: 'ignored' });
      assert.deepEqual(
        [tcp.name, tcp.service, tcp.protocol, tcp.priority, tcp.weight, tcp.port],
        ['_sip._tcp', '_sip', '_tcp', 10, 20, 5060],
      );
      const udp = await z.add({ ...srv, service: '_XMPP', protocol: '_udp' });
      assert.deepEqual([udp.name, udp.service, udp.protocol], ['_xmpp._udp', '_xmpp', '_udp']);
      const back = await app.request('PUT', `${z.url}/${udp.id}`, { body: udp });
      assert.deepEqual(
        [back.status, back.body.service, back.body.protocol],
        [200, '_xmpp', '_udp'],
        'what was read goes back unchanged',
      );
    });

    test('SRV: a service sent with its underscore, or with underscores inside, is taken and served as one label', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      const srv = { type: 'SRV', priority: 10, weight: 5, port: 5060, target: 'sip.example.org' };
      await refuses(app, z.url, [
        [{ ...srv, service: '_' }, ['service']],
        [{ ...srv, service: '_sip-' }, ['service']],
        [{ ...srv, service: `_${'s'.repeat(63)}` }, ['service']],
        [{ ...srv, service: 'sip', protocol: '_t.cp' }, ['protocol']],
      ]);
      const cases: [string, string][] = [
        ['_sip', '_sip'],
        ['service_test', '_service_test'],
        ['_service_test', '_service_test'],
        ['__sip', '__sip'],
        [`_${'s'.repeat(62)}`, `_${'s'.repeat(62)}`],
      ];
      for (const [service, shown] of cases) {
        const res = await z.post({ ...srv, service, protocol: '_tls' });
        assert.equal(res.status, 200, `${service}: ${JSON.stringify(res.body)}`);
        assert.deepEqual([res.body.service, res.body.protocol, res.body.name], [shown, '_tls', `${shown}._tls`], service);
        const again = await app.request('GET', `${z.url}/${res.body.id}`);
        assert.equal(again.body.service, shown);
        const back = await app.request('PUT', `${z.url}/${res.body.id}`, { body: again.body });
        assert.deepEqual([back.status, back.body.service], [200, shown], 'what was read goes back unchanged');
      }
      const lines = await renderedZone(app, z.domain.id);
      const served = `_service_test._tls.${z.domain.domain}. 300 IN SRV 10 5 5060 sip.example.org.`;
      assert.ok(lines.includes(served), lines.join('\n'));
    });

    test('CAA: tag issue, issuewild or iodef required; the value checked by tag; no trailing period', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await refuses(app, z.url, [
        [{ type: 'CAA', target: 'letsencrypt.org' }, ['tag']],
        [{ type: 'CAA', tag: 'issuer', target: 'letsencrypt.org' }, ['tag']],
        [{ type: 'CAA', tag: 'issue', target: 'letsencrypt.org.' }, ['target']],
        [{ type: 'CAA', tag: 'issue', target: 'not a domain' }, ['target']],
        [{ type: 'CAA', tag: 'issue', target: 'ca.example; bad param' }, ['target']],
        [{ type: 'CAA', tag: 'issuewild', target: '*.ca.example' }, ['target']],
        [{ type: 'CAA', tag: 'iodef', target: 'ftp://ca.example/report' }, ['target']],
        [{ type: 'CAA', tag: 'iodef', target: 'mailto:nobody' }, ['target']],
        [{ type: 'CAA', tag: 'issue' }, ['target']],
      ]);
      const issue = await z.add({ type: 'CAA', tag: 'issue', target: 'letsencrypt.org; validationmethods=dns-01' });
      assert.deepEqual([issue.name, issue.tag, issue.target], ['', 'issue', 'letsencrypt.org; validationmethods=dns-01']);
      await z.add({ type: 'CAA', name: 'shop', tag: 'issuewild', target: 'pki.example.org' });
      await z.add({ type: 'CAA', tag: 'iodef', target: 'mailto:security@example.org' });
      await z.add({ type: 'CAA', tag: 'iodef', target: 'https://ca.example.org/report' });
    });

    test('TXT: any text up to what one record holds; fields a type does not use are ignored', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await refuses(app, z.url, [
        [{ type: 'TXT' }, ['target']],
        [{ type: 'TXT', target: '' }, ['target']],
        [{ type: 'TXT', target: 'x'.repeat(65300) }, ['target']],
      ]);
      const text = `v=DKIM1; k=rsa; p=${'A'.repeat(600)} "quoted" \\ ünïcode`;
      assert.equal((await z.add({ type: 'TXT', name: 'key._domainkey', target: text })).target, text);
      const a = await z.add({
        type: 'A',
        target: '192.0.2.9',
        priority: 50,
        weight: 50,
        port: 80,
        service: 'http',
        protocol: 'tcp',
        tag: 'issue',
      });
      assert.deepEqual([a.priority, a.weight, a.port, a.service, a.protocol, a.tag], [0, 0, 0, null, null, null]);
    });

    test('ttl_sec rounds to the nearest valid value, a tie up, 0 to 300; left out, 0 serves the domain TTL', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      const ttls = [];
      for (const ttl of [0, 1, 300, 1900, 1950, 2000, 604800, 700000, 10 ** 9]) {
        ttls.push((await z.add({ type: 'A', target: '192.0.2.1', ttl_sec: ttl })).ttl_sec);
      }
      assert.deepEqual(ttls, [300, 300, 300, 300, 3600, 3600, 604800, 604800, 2419200]);
      const negative = await z.post({ type: 'A', target: '192.0.2.1', ttl_sec: -1 });
      assert.deepEqual([negative.status, fieldsOf(negative.body)], [400, ['ttl_sec']]);

      const plain = await z.add({ type: 'A', name: 'plain', target: '192.0.2.2' });
      assert.equal(plain.ttl_sec, 0, "left out: the domain's TTL");
      const put = (body: unknown) => app.request('PUT', `${z.url}/${plain.id}`, { body });
      assert.equal((await put({ target: '192.0.2.3' })).body.ttl_sec, 0, 'an update that leaves it out keeps it');
      await app.request('PUT', `/v4/domains/${z.domain.id}`, { body: { ttl_sec: 3600 } });
      const lines = await renderedZone(app, z.domain.id);
      assert.ok(lines.includes(`plain.${z.domain.domain}. 3600 IN A 192.0.2.3`), lines.join('\n'));
      assert.equal((await put({ ttl_sec: 0 })).body.ttl_sec, 300, 'sent, 0 rounds like any other value');
    });

    test('a CNAME shares its name with no other record, and needs a name', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      await z.add({ type: 'A', name: 'www', target: '192.0.2.1' });
      const cname = await z.add({ type: 'CNAME', name: 'alias', target: 'www' });
      const cases: [Record<string, unknown>, string][] = [
        [{ type: 'CNAME', name: 'WWW', target: 'other.example.org' }, 'name'],
        [{ type: 'CNAME', name: 'alias', target: 'other.example.org' }, 'name'],
        [{ type: 'TXT', name: 'alias', target: 'hello' }, 'name'],
        [{ type: 'CNAME', target: 'other.example.org' }, 'name'],
        [{ type: 'CNAME', name: z.domain.domain, target: 'other.example.org' }, 'name'],
      ];
      for (const [body, field] of cases) {
        const res = await z.post(body);
        assert.deepEqual([res.status, fieldsOf(res.body)], [400, [field]], JSON.stringify(body));
      }
      const moved = await app.request('PUT', `${z.url}/${cname.id}`, { body: { name: 'www' } });
      assert.deepEqual([moved.status, fieldsOf(moved.body)], [400, ['name']]);
      assert.equal(
        (await app.request('PUT', `${z.url}/${cname.id}`, { body: { target: 'elsewhere.example.org.' } })).status,
        200,
      );
      assert.equal((await app.request('GET', z.url)).body.results, 2);
    });

    test('update and delete: the fields sent over the stored ones, checked again; events name the domain and the record', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const z = await zone(app);
      const record = await z.add({ type: 'MX', name: 'mail', target: 'mx1.example.org', priority: 10 });
      const put = (body: unknown) => app.request('PUT', `${z.url}/${record.id}`, { body });
      const bad = await put({ type: 'A' });
      assert.deepEqual([bad.status, fieldsOf(bad.body)], [400, ['target']], 'an MX target is no IPv4 address');
      const res = await put({ priority: 20, ttl_sec: 3000 });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        [res.body.name, res.body.target, res.body.priority, res.body.ttl_sec],
        ['mail', 'mx1.example.org', 20, 3600],
      );
      assert.equal((await app.request('DELETE', `${z.url}/${record.id}`)).status, 200);
      assert.equal((await app.request('GET', `${z.url}/${record.id}`)).status, 404);
      assert.equal((await app.request('DELETE', `${z.url}/${record.id}`)).status, 404);
      for (const action of ['dns_record_create', 'dns_record_update', 'dns_record_delete']) {
        const events = await eventsOf(app, me.accountId, action);
        assert.equal(events.length, 1, action);
        assert.deepEqual([events[0]?.entity_type, events[0]?.entity_id], ['domain', z.domain.id], action);
        assert.deepEqual(JSON.parse(events[0]?.secondary_entity ?? 'null'), {
          id: record.id,
          type: 'domain_record',
          label: 'mail',
          url: `/v4/domains/${z.domain.id}/records/${record.id}`,
        });
      }
    });

    test("records live under their domain: another domain's record is a 404; X-Filter on type, name and tag", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const z = await zone(app);
      const other = await zone(app);
      const a = await z.add({ type: 'A', name: 'www', target: '192.0.2.1' });
      const txt = await z.add({ type: 'TXT', name: 'www', target: 'hello' });
      const caa = await z.add({ type: 'CAA', tag: 'iodef', target: 'mailto:sec@example.org' });
      assert.equal((await app.request('GET', `${other.url}/${a.id}`)).status, 404);
      assert.equal((await app.request('PUT', `${other.url}/${a.id}`, { body: { ttl_sec: 300 } })).status, 404);
      const ids = async (filter: unknown) => {
        const res = await app.request('GET', z.url, { headers: { 'x-filter': JSON.stringify(filter) } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.data.map((r: { id: number }) => r.id);
      };
      assert.deepEqual(await ids({ type: 'TXT' }), [txt.id]);
      assert.deepEqual(await ids({ name: 'www' }), [a.id, txt.id]);
      assert.deepEqual(await ids({ tag: 'iodef' }), [caa.id]);
      const bad = await app.request('GET', z.url, { headers: { 'x-filter': '{"target": "x"}' } });
      assert.equal(bad.status, 400);
      assert.equal((await app.request('GET', `${z.url}?page_size=10`)).status, 400);
      assert.equal((await app.request('GET', '/v4/domains/999999/records')).status, 404);
    });
  });
}
