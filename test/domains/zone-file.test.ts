import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildTestApp, DIALECTS, type TestApp, tempDir } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { needs } from '../helpers/system-tools.ts';
import { addRecord, checkZone, createDomain, fieldsOf, renderedZone, serialOf } from './helpers.ts';

/** A domain with a record of every type, some of every shape a type takes. */
async function everyType(app: TestApp, domain: string) {
  const zone = await createDomain(app, { domain, soa_email: 'first.last@example.org', ttl_sec: 3600, refresh_sec: 7200 });
  const records = [
    { type: 'A', target: '192.0.2.1' },
    { type: 'A', name: 'www', target: '192.0.2.2', ttl_sec: 300 },
    { type: 'A', name: '*.dev', target: '192.0.2.3' },
    { type: 'A', name: 'ns1.sub', target: '192.0.2.53' },
    { type: 'AAAA', name: 'www', target: '2001:db8::2' },
    { type: 'NS', name: 'sub', target: `ns1.sub.${domain}` },
    { type: 'NS', name: 'sub', target: 'ns2.example.org.' },
    { type: 'MX', target: 'mail', priority: 10 },
    { type: 'MX', target: 'mx2.example.org.', priority: 20 },
    { type: 'MX', name: 'nomail', target: '' },
    { type: 'A', name: 'mail', target: '192.0.2.25' },
    { type: 'CNAME', name: 'web', target: 'www' },
    { type: 'CNAME', name: 'docs', target: 'pages.example.org.' },
    { type: 'TXT', target: 'v=spf1 mx -all' },
    { type: 'TXT', name: 'quoted', target: 'say "hi" \\ back; ünïcode' },
    { type: 'TXT', name: 'long._domainkey', target: `v=DKIM1; k=rsa; p=${'A'.repeat(700)}` },
    { type: 'SRV', service: 'sip', protocol: 'udp', priority: 10, weight: 60, port: 5060, target: 'sip.example.org' },
    { type: 'SRV', service: 'xmpp-server', priority: 5, weight: 0, port: 5269, target: 'mail' },
    { type: 'PTR', name: '1.2', target: 'host.example.org.' },
    { type: 'CAA', tag: 'issue', target: 'letsencrypt.org' },
    { type: 'CAA', tag: 'issuewild', target: 'pki.example.org; policy=ev' },
    { type: 'CAA', tag: 'iodef', target: 'mailto:security@example.org' },
  ];
  for (const record of records) await addRecord(app, zone.id, record);
  return zone;
}

describe('CUMULO_DNS_NAMESERVERS', () => {
  test('host names, comma-separated; by default ns1 and ns2 under CUMULO_HOSTNAME', () => {
    assert.deepEqual(loadConfig({ CUMULO_HOSTNAME: 'Cloud.Example.NET' }).dnsNameservers, [
      'ns1.cloud.example.net',
      'ns2.cloud.example.net',
    ]);
    assert.deepEqual(loadConfig({}).dnsNameservers, ['ns1.cumulo.local', 'ns2.cumulo.local']);
    const set = loadConfig({ CUMULO_DNS_NAMESERVERS: ' A.dns.example.org., b.dns.example.org ,' });
    assert.deepEqual(set.dnsNameservers, ['a.dns.example.org', 'b.dns.example.org']);
    assert.throws(() => loadConfig({ CUMULO_DNS_NAMESERVERS: 'ns1.example.org,192.0.2.1' }), ConfigError);
    assert.throws(() => loadConfig({ CUMULO_DNS_NAMESERVERS: 'not a host' }), /CUMULO_DNS_NAMESERVERS/);
  });
});

for (const dialect of DIALECTS) {
  describe(`zone files [${dialect}]`, () => {
    test('a zone with every record type renders as a master file named-checkzone loads', needs('named-checkzone'), async (t) => {
      const app = await buildTestApp(t, { dialect, config: { hostname: 'cloud.example.net' } });
      const zone = await everyType(app, 'every-type.example');
      const lines = await renderedZone(app, zone.id);
      const out = checkZone(tempDir(t), 'every-type.example', lines);
      assert.match(out, /loaded serial \d+/);
      assert.match(out, /^OK$/m);
      const serial = serialOf(lines);
      assert.deepEqual(lines.slice(0, 6), [
        `; every-type.example serial ${serial}`,
        '$ORIGIN every-type.example.',
        '$TTL 3600',
        `every-type.example. 3600 IN SOA ns1.cloud.example.net. first\\.last.example.org. ${serial} 7200 14400 1209600 3600`,
        'every-type.example. 3600 IN NS ns1.cloud.example.net.',
        'every-type.example. 3600 IN NS ns2.cloud.example.net.',
      ]);
      for (const line of [
        'www.every-type.example. 300 IN A 192.0.2.2',
        'every-type.example. 3600 IN MX 10 mail.every-type.example.',
        'nomail.every-type.example. 3600 IN MX 0 .',
        '_sip._udp.every-type.example. 3600 IN SRV 10 60 5060 sip.example.org.',
        'every-type.example. 3600 IN CAA 0 issue "letsencrypt.org"',
        'quoted.every-type.example. 3600 IN TXT "say \\"hi\\" \\\\ back; \\195\\188n\\195\\175code"',
        'web.every-type.example. 3600 IN CNAME www.every-type.example.',
        'sub.every-type.example. 3600 IN NS ns1.sub.every-type.example.',
      ]) {
        assert.ok(lines.includes(line), `${line}\nnot in\n${lines.join('\n')}`);
      }
      const dkim = lines.find((l) => l.startsWith('long._domainkey.')) ?? '';
      const strings = dkim.match(/"[^"]*"/g) ?? [];
      assert.deepEqual(
        strings.map((s) => s.length - 2),
        [255, 255, 208],
        'a long text in strings of 255 bytes',
      );
    });

    test('CUMULO_DNS_NAMESERVERS are the NS records and the SOA primary', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { dnsNameservers: ['a.dns.example.net', 'b.dns.example.net'] } });
      const zone = await createDomain(app);
      const lines = await renderedZone(app, zone.id);
      assert.match(lines[3] ?? '', / IN SOA a\.dns\.example\.net\. hostmaster\.example\.org\. /);
      assert.deepEqual(
        lines.filter((l) => / IN NS /.test(l)).map((l) => l.split(' ').at(-1)),
        ['a.dns.example.net.', 'b.dns.example.net.'],
      );
    });

    test('no zone file before the first render; the serial rises with every change, refused ones aside', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const zone = await createDomain(app);
      assert.deepEqual((await app.request('GET', `/v4/domains/${zone.id}/zone-file`)).body, { zone_file: [] });
      const serials = [serialOf(await renderedZone(app, zone.id))];
      const changes: [string, string, unknown?][] = [];
      const record = await addRecord(app, zone.id, { type: 'A', name: 'www', target: '192.0.2.1' });
      serials.push(serialOf(await renderedZone(app, zone.id)));
      changes.push(['PUT', `/v4/domains/${zone.id}/records/${record.id}`, { target: '192.0.2.2' }]);
      changes.push(['PUT', `/v4/domains/${zone.id}`, { description: 'changed' }]);
      changes.push(['DELETE', `/v4/domains/${zone.id}/records/${record.id}`]);
      for (const [method, url, body] of changes) {
        const res = await app.request(method, url, body === undefined ? {} : { body });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        serials.push(serialOf(await renderedZone(app, zone.id)));
      }
      for (let i = 1; i < serials.length; i++) assert.ok((serials[i] ?? 0) > (serials[i - 1] ?? 0), `serials rise: ${serials}`);
      assert.match(String(serials[0]), /^20\d{6}\d\d$/, 'the first serial is the date and a counter');

      const refused = await app.request('POST', `/v4/domains/${zone.id}/records`, { body: { type: 'A', target: 'x' } });
      assert.deepEqual([refused.status, fieldsOf(refused.body)], [400, ['target']]);
      assert.equal(await runDueJobs(app), 0, 'a refused change schedules no render');
      const row = await app.runtime.ctx.db
        .selectFrom('domains')
        .select('serial')
        .where('id', '=', zone.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.serial, serials.at(-1), 'nor raises the serial');
    });

    test('several changes before the worker runs: one render, of the latest state', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const zone = await createDomain(app);
      for (let i = 1; i <= 5; i++) await addRecord(app, zone.id, { type: 'A', name: `h${i}`, target: `192.0.2.${i}` });
      assert.equal(await runDueJobs(app), 1);
      const lines = (await app.request('GET', `/v4/domains/${zone.id}/zone-file`)).body.zone_file;
      assert.equal(lines.filter((l: string) => / IN A /.test(l)).length, 5);
    });

    test('a disabled domain is not rendered: its last rendered zone stays until it is active again', async (t) => {
      // The slave's SOA check at the documentation address gets no answer: its wait is kept short.
      const app = await buildTestApp(t, { dialect, config: { dnsTimeoutMs: 50 } });
      const zone = await createDomain(app);
      const before = await renderedZone(app, zone.id);
      assert.equal((await app.request('PUT', `/v4/domains/${zone.id}`, { body: { status: 'disabled' } })).status, 200);
      await addRecord(app, zone.id, { type: 'A', name: 'hidden', target: '192.0.2.7' });
      assert.deepEqual(await renderedZone(app, zone.id), before);
      assert.equal((await app.request('PUT', `/v4/domains/${zone.id}`, { body: { status: 'active' } })).status, 200);
      const after = await renderedZone(app, zone.id);
      assert.ok(serialOf(after) > serialOf(before));
      assert.ok(after.includes(`hidden.${zone.domain}. 86400 IN A 192.0.2.7`), after.join('\n'));

      const disabled = await createDomain(app, { status: 'disabled' });
      assert.deepEqual(await renderedZone(app, disabled.id), [], 'created disabled: never rendered');
      const slave = await createDomain(app, { type: 'slave', master_ips: ['192.0.2.53'] });
      assert.deepEqual(await renderedZone(app, slave.id), [], 'a slave is not rendered from its records');
    });

    test('clone: a new domain with the settings, tags and every record of the source; the name must be free', async (t) => {
      // The NOTIFY to the documentation address gets no answer: its wait is kept short.
      const app = await buildTestApp(t, { dialect, config: { dnsTimeoutMs: 50 } });
      const source = await createDomain(app, { tags: ['web'], ttl_sec: 300, axfr_ips: ['192.0.2.9'] });
      await addRecord(app, source.id, { type: 'A', name: 'www', target: '192.0.2.1' });
      await addRecord(app, source.id, { type: 'CAA', tag: 'issue', target: 'letsencrypt.org' });
      const taken = await createDomain(app);
      const clone = (domain: string, id = source.id) => app.request('POST', `/v4/domains/${id}/clone`, { body: { domain } });

      for (const domain of [taken.domain, source.domain.toUpperCase(), 'not_a_domain']) {
        const res = await clone(domain);
        assert.deepEqual([res.status, fieldsOf(res.body)], [400, ['domain']], domain);
      }
      assert.equal((await clone('nowhere.example', 999999)).status, 404);
      assert.equal((await app.request('POST', `/v4/domains/01/clone`, { body: { domain: 'x.example' } })).status, 404);

      const res = await clone('Copy.example');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const copy = res.body;
      const made = { id: 0, domain: '', created: '', updated: '' };
      assert.deepEqual({ ...copy, ...made }, { ...source, ...made }, 'the settings and tags; its id, name and times are its own');
      assert.equal(copy.domain, 'copy.example');
      const records = (await app.request('GET', `/v4/domains/${copy.id}/records`)).body.data;
      assert.deepEqual(
        records.map((r: { type: string; name: string; target: string }) => [r.type, r.name, r.target]),
        [
          ['A', 'www', '192.0.2.1'],
          ['CAA', '', 'letsencrypt.org'],
        ],
      );
      const lines = await renderedZone(app, copy.id);
      assert.ok(lines.includes('www.copy.example. 300 IN A 192.0.2.1'), lines.join('\n'));
      assert.equal(
        (await app.request('GET', `/v4/domains/${source.id}/records`)).body.results,
        2,
        'the source keeps its records',
      );
    });
  });
}
