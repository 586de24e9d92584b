import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Nameserver } from '../../src/dns/nameserver.ts';
import { needs } from '../helpers/system-tools.ts';
import {
  dig,
  digTransfer,
  exampleZone,
  largeZone,
  listenTestNameserver,
  memorySource,
  renamed,
  SOA_MINIMUM,
  shown,
} from './helpers.ts';

const SOA_DATA = 'ns1.example.com. hostmaster.example.com. 2026010101 14400 3600 604800 300';
const NEGATIVE_SOA = `example.com. ${SOA_MINIMUM} SOA ${SOA_DATA}`;

describe('the nameserver, asked by dig', needs('dig'), () => {
  let port = 0;
  let server: Nameserver | undefined;
  before(async () => {
    // private.test: the same records, but 127.0.0.1 (where dig asks from) is not in its axfrIps.
    const zones = [exampleZone(['127.0.0.1']), renamed(exampleZone(), 'private.test', ['192.0.2.200']), largeZone(1000)];
    ({ server, port } = await listenTestNameserver(memorySource(zones)));
  });
  after(() => server?.close());

  test('every record type is answered authoritatively, as stored', async () => {
    const cases: [string, string, string[]][] = [
      ['www.example.com', 'A', ['192.0.2.1']],
      ['www.example.com', 'AAAA', ['2001:db8::1']],
      ['example.com', 'NS', ['ns1.example.com.', 'ns2.example.com.']],
      ['example.com', 'SOA', [SOA_DATA]],
      ['example.com', 'MX', ['10 mail.example.com.']],
      ['example.com', 'TXT', ['"v=spf1 -all"']],
      ['multi.example.com', 'TXT', ['"part one" "part two"']],
      ['_sip._tcp.example.com', 'SRV', ['10 20 5060 sip.example.com.']],
      ['ptr.example.com', 'PTR', ['host.example.org.']],
      ['example.com', 'CAA', ['0 issue "ca.example.net"']],
      ['alias.example.com', 'CNAME', ['www.example.com.']],
    ];
    for (const [name, type, data] of cases) {
      const res = await dig(port, name, type);
      assert.equal(res.status, 'NOERROR', `${name} ${type}`);
      assert.deepEqual(res.flags, ['qr', 'aa'], `${name} ${type}`);
      assert.deepEqual(res.answer.map((r) => [r.name, r.type, r.data]).sort(), data.map((d) => [`${name}.`, type, d]).sort());
      assert.deepEqual(res.authority, [], `${name} ${type}: no authority section on an answer`);
    }
  });

  test('names are matched in any case and the question is echoed as asked', async () => {
    const res = await dig(port, 'WwW.ExAmPlE.cOm', 'A');
    assert.equal(res.status, 'NOERROR');
    assert.equal(res.question, 'WwW.ExAmPlE.cOm.');
    assert.deepEqual(res.answer.map(shown), ['WwW.ExAmPlE.cOm. 300 A 192.0.2.1']);
  });

  test('a known name without the type asked is NODATA, a missing one NXDOMAIN, both with the SOA at its negative TTL', async () => {
    const nodata = await dig(port, 'www.example.com', 'MX');
    assert.deepEqual([nodata.status, nodata.flags, nodata.answer], ['NOERROR', ['qr', 'aa'], []]);
    assert.deepEqual(nodata.authority.map(shown), [NEGATIVE_SOA]);
    const nxdomain = await dig(port, 'nothing-here.example.com', 'A');
    assert.deepEqual([nxdomain.status, nxdomain.flags, nxdomain.answer], ['NXDOMAIN', ['qr', 'aa'], []]);
    assert.deepEqual(nxdomain.authority.map(shown), [NEGATIVE_SOA]);
  });

  test('a name with records only below it is an empty non-terminal: NODATA, not NXDOMAIN', async () => {
    for (const name of ['deep.example.com', 'b.deep.example.com']) {
      const res = await dig(port, name, 'A');
      assert.deepEqual([res.status, res.flags, res.answer], ['NOERROR', ['qr', 'aa'], []], name);
      assert.deepEqual(res.authority.map(shown), [NEGATIVE_SOA], name);
    }
    const below = await dig(port, 'c.b.deep.example.com', 'A');
    assert.equal(below.status, 'NXDOMAIN');
  });

  test('a name outside every served zone is REFUSED, not authoritative', async () => {
    for (const name of ['example.org', 'com', 'notexample.com']) {
      const res = await dig(port, name, 'A');
      assert.deepEqual([res.status, res.flags, res.answer, res.authority], ['REFUSED', ['qr'], [], []], name);
    }
  });

  test('CNAMEs are returned and followed inside the zone; the last name sets the response code', async () => {
    const chain = await dig(port, 'chain.example.com', 'A');
    assert.deepEqual([chain.status, chain.flags], ['NOERROR', ['qr', 'aa']]);
    assert.deepEqual(chain.answer.map(shown), [
      'chain.example.com. 300 CNAME alias.example.com.',
      'alias.example.com. 300 CNAME www.example.com.',
      'www.example.com. 300 A 192.0.2.1',
    ]);
    const away = await dig(port, 'away.example.com', 'A');
    assert.deepEqual(
      [away.status, away.answer.map(shown), away.authority],
      ['NOERROR', ['away.example.com. 300 CNAME elsewhere.example.net.'], []],
    );
    const dangling = await dig(port, 'dangling.example.com', 'A');
    assert.deepEqual(
      [dangling.status, dangling.answer.map(shown)],
      ['NXDOMAIN', ['dangling.example.com. 300 CNAME nothing.example.com.']],
    );
    assert.deepEqual(dangling.authority.map(shown), [NEGATIVE_SOA]);
    const nodata = await dig(port, 'alias.example.com', 'MX');
    assert.deepEqual([nodata.status, nodata.answer.length, nodata.authority.map(shown)], ['NOERROR', 1, [NEGATIVE_SOA]]);
    const loop = await dig(port, 'loop1.example.com', 'A');
    assert.equal(loop.status, 'NOERROR');
    assert.deepEqual(
      loop.answer.map((r) => r.name),
      ['loop1.example.com.', 'loop2.example.com.'],
      'a loop ends where it comes back',
    );
  });

  test('ANY gets every record at the name', async () => {
    const res = await dig(port, 'www.example.com', 'ANY');
    assert.deepEqual([res.status, res.flags], ['NOERROR', ['qr', 'aa']]);
    assert.deepEqual(res.answer.map((r) => `${r.type} ${r.data}`).sort(), ['A 192.0.2.1', 'AAAA 2001:db8::1']);
  });

  test('a wildcard answers for the names it covers, under their own name', async () => {
    const res = await dig(port, 'anything.wild.example.com', 'A');
    assert.deepEqual([res.status, res.answer.map(shown)], ['NOERROR', ['anything.wild.example.com. 300 A 192.0.2.99']]);
    const nodata = await dig(port, 'anything.wild.example.com', 'AAAA');
    assert.deepEqual([nodata.status, nodata.answer, nodata.authority.map(shown)], ['NOERROR', [], [NEGATIVE_SOA]]);
  });

  test('a name below a delegation gets a referral: not authoritative, the NS records and their glue', async () => {
    const res = await dig(port, 'host.sub.example.com', 'A');
    assert.deepEqual([res.status, res.flags, res.answer], ['NOERROR', ['qr'], []]);
    assert.deepEqual(res.authority.map(shown), ['sub.example.com. 3600 NS ns.sub.example.com.']);
    assert.deepEqual(res.additional.map(shown), ['ns.sub.example.com. 3600 A 192.0.2.53']);
  });

  test('EDNS is echoed with a 1232-byte UDP size; without it, none', async () => {
    assert.equal((await dig(port, 'www.example.com', 'A')).ednsUdp, 1232);
    assert.equal((await dig(port, 'www.example.com', 'A', '+noedns')).ednsUdp, null);
  });

  test('a UDP answer over the client size is truncated (TC, no records) and comes whole over TCP', async () => {
    const truncated = await dig(port, 'big.example.com', 'TXT', '+ignore');
    assert.deepEqual([truncated.status, truncated.flags, truncated.answer], ['NOERROR', ['qr', 'aa', 'tc'], []]);
    const retried = await dig(port, 'big.example.com', 'TXT');
    assert.match(retried.output, /Truncated, retrying in TCP mode/);
    assert.deepEqual([retried.flags, retried.answer.length], [['qr', 'aa'], 40]);
    const tcp = await dig(port, 'big.example.com', 'TXT', '+tcp');
    assert.deepEqual([tcp.flags, tcp.answer.length], [['qr', 'aa'], 40]);
  });

  test('512 bytes without EDNS, the advertised size with it', async () => {
    const classic = await dig(port, 'medium.example.com', 'TXT', '+noedns', '+ignore');
    assert.deepEqual([classic.flags, classic.answer.length], [['qr', 'aa', 'tc'], 0]);
    const small = await dig(port, 'medium.example.com', 'TXT', '+bufsize=600', '+ignore');
    assert.deepEqual([small.flags, small.answer.length], [['qr', 'aa', 'tc'], 0]);
    const large = await dig(port, 'medium.example.com', 'TXT', '+bufsize=1232', '+ignore');
    assert.deepEqual([large.flags, large.answer.length], [['qr', 'aa'], 8]);
    const huge = await dig(port, 'big.example.com', 'TXT', '+bufsize=65000', '+ignore');
    assert.deepEqual([huge.flags, huge.answer.length], [['qr', 'aa', 'tc'], 0], 'never more than 1232 bytes over UDP');
  });

  test('AXFR to an address in axfrIps: the SOA, every record, the SOA', async () => {
    const zone = exampleZone();
    const res = await digTransfer(port, 'example.com');
    assert.equal(res.failed, false, res.output);
    const soa = `example.com. 86400 SOA ${SOA_DATA}`;
    assert.equal(shown(res.records[0] ?? { name: '', ttl: 0, type: '', data: '' }), soa);
    assert.equal(shown(res.records.at(-1) ?? { name: '', ttl: 0, type: '', data: '' }), soa);
    assert.equal(res.records.length, zone.records.length + 1);
    const www = res.records.filter((r) => r.name === 'www.example.com.').map(shown);
    assert.deepEqual(www, ['www.example.com. 300 A 192.0.2.1', 'www.example.com. 300 AAAA 2001:db8::1']);
  });

  test('AXFR of a large zone takes several messages', async () => {
    const res = await digTransfer(port, 'large.test');
    assert.equal(res.failed, false, res.output);
    assert.equal(res.records.length, 1000 + 3);
    assert.ok(res.messages > 1, `${res.messages} messages`);
  });

  test('AXFR from an address outside axfrIps, or of a zone not served, fails', async () => {
    assert.equal((await digTransfer(port, 'private.test')).failed, true);
    assert.equal((await digTransfer(port, 'example.org')).failed, true);
    const served = await dig(port, 'www.private.test', 'A');
    assert.deepEqual([served.status, served.answer.length], ['NOERROR', 1], 'the zone is still answered');
  });

  test('IXFR: the whole zone for an older serial, the SOA alone for the current one', async () => {
    const old = await digTransfer(port, 'example.com', 'IXFR=2026010100');
    assert.equal(old.records.length, exampleZone().records.length + 1);
    const current = await digTransfer(port, 'example.com', 'IXFR=2026010101');
    assert.deepEqual(
      current.records.map((r) => r.type),
      ['SOA'],
    );
  });
});
