import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { capturedLog } from '../helpers/log.ts';
import { freePort } from '../helpers/server-process.ts';
import { createDomain, domainBody, fieldsOf } from './helpers.ts';

/** Addresses a domain may not name for the service to ask or notify; the first one (public) is allowed. */
const IPS = [
  '192.0.2.1',
  '169.254.169.254',
  '0.0.0.0',
  '255.255.255.255',
  '224.0.0.1',
  '127.0.0.1',
  '::1',
  '::ffff:127.0.0.1',
  'fe80::1',
  '10.0.0.1',
];

/** A DNS server on 127.0.0.1 (UDP and TCP on one port) that answers nothing and counts what it gets. */
async function countingDnsServer(t: { after(fn: () => unknown): void }): Promise<{ port: number; received: () => number }> {
  let received = 0;
  const tcp = net.createServer((socket) => {
    received += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const { port } = tcp.address() as net.AddressInfo;
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => {
    received += 1;
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  t.after(() => {
    tcp.close();
    udp.close();
  });
  return { port, received: () => received };
}

for (const dialect of DIALECTS) {
  describe(`domains and the egress policy [${dialect}]`, () => {
    test('master_ips and axfr_ips are stored as given, whatever addresses they are, as the live service keeps them', async (t) => {
      const dns = await countingDnsServer(t);
      const app = await buildTestApp(t, { dialect, config: { dnsMasterPort: dns.port, dnsNotifyPort: dns.port } });
      const refused = IPS.slice(1);
      const slave = await app.request('POST', '/v4/domains', { body: domainBody({ type: 'slave', master_ips: refused }) });
      assert.equal(slave.status, 200, JSON.stringify(slave.body));
      assert.deepEqual(slave.body.master_ips, refused);
      const master = await app.request('POST', '/v4/domains', { body: domainBody({ master_ips: IPS, axfr_ips: refused }) });
      assert.equal(master.status, 200, JSON.stringify(master.body));
      assert.deepEqual([master.body.master_ips, master.body.axfr_ips], [IPS, refused]);
      const put = await app.request('PUT', `/v4/domains/${master.body.id}`, { body: { axfr_ips: ['10.0.0.53', '::1'] } });
      assert.deepEqual([put.status, put.body.axfr_ips], [200, ['10.0.0.53', '::1']]);
      const clone = await app.request('POST', `/v4/domains/${slave.body.id}/clone`, { body: { domain: 'copy-of.example' } });
      assert.deepEqual([clone.status, clone.body.master_ips], [200, refused]);
      const notIp = await app.request('PUT', `/v4/domains/${master.body.id}`, { body: { master_ips: ['ns1.example.org'] } });
      assert.deepEqual([notIp.status, fieldsOf(notIp.body)], [400, ['master_ips[0]']], 'they are still addresses');

      // The policy applies when the service would connect: the slaves ask nothing and say why.
      await runDueJobs(app);
      assert.equal(dns.received(), 0, 'no SOA query, transfer or NOTIFY went out');
      const seen = await app.request('GET', `/v4/domains/${slave.body.id}`);
      assert.match(seen.body.errors, /169\.254\.169\.254:\d+ is not one this service may connect to/);
      assert.equal(
        (await app.request('GET', `/v4/domains/${master.body.id}`)).body.errors,
        '',
        "a master's master_ips are never asked",
      );
    });

    test('a slave asks no master the policy refuses, and a master sends it no NOTIFY: nothing is sent', async (t) => {
      const dns = await countingDnsServer(t);
      const log = capturedLog();
      const app = await buildTestApp(t, {
        dialect,
        config: { dnsMasterPort: dns.port, dnsNotifyPort: dns.port, logLevel: 'info' },
        logger: log.logger,
      });
      const slave = await createDomain(app, { type: 'slave', master_ips: ['127.0.0.1', '::ffff:7f00:1'] });
      await createDomain(app, { axfr_ips: ['127.0.0.1'] });
      await runDueJobs(app);

      const state = await app.runtime.ctx.db
        .selectFrom('domain_slave_zones')
        .selectAll()
        .where('domain_id', '=', slave.id)
        .executeTakeFirstOrThrow();
      assert.match(state.last_error ?? '', /127\.0\.0\.1:\d+ is not one this service may connect to/);
      assert.match(state.last_error ?? '', /::ffff:7f00:1\]?:\d+ is not one this service may connect to/);
      const notified = log.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'DNS NOTIFY sent');
      assert.ok(notified, 'the NOTIFY job ran');
      assert.match(notified.notified[0], /is not an address this service may connect to: nothing sent/);
      assert.equal(dns.received(), 0, 'no SOA query, no transfer, no NOTIFY reached the server');
    });

    test('import refuses a remote_nameserver the policy refuses, by address or by a name resolved then', async (t) => {
      const dns = await countingDnsServer(t);
      const app = await buildTestApp(t, { dialect });
      for (const remote of [
        `127.0.0.1:${dns.port}`,
        `0x7f.1:${dns.port}`,
        `[::ffff:127.0.0.1]:${dns.port}`,
        `localhost:${dns.port}`,
      ]) {
        const res = await app.request('POST', '/v4/domains/import', {
          body: { domain: 'taken.example', remote_nameserver: remote },
        });
        assert.deepEqual([res.status, fieldsOf(res.body)], [400, ['remote_nameserver']], remote);
        assert.match(res.body.errors[0].reason, /not one this service may connect to/, remote);
      }
      assert.equal(dns.received(), 0, 'no transfer was asked for');
    });

    test("the service's own nameserver is never asked as a master, even when ALLOW covers loopback", async (t) => {
      const port = await freePort();
      const app = await buildTestApp(t, {
        dialect,
        config: { ...LOOPBACK_EGRESS, dnsListen: `127.0.0.1:${port}`, dnsMasterPort: port },
      });
      const own = await createDomain(app, { type: 'slave', master_ips: ['127.0.0.1', '::ffff:127.0.0.1'] });
      await runDueJobs(app);
      // ALLOW covers loopback: what refuses these is that the service itself listens there.
      const seen = await app.request('GET', `/v4/domains/${own.id}`);
      assert.match(seen.body.errors, /127\.0\.0\.1:\d+ is not one this service may connect to/);
      assert.match(seen.body.errors, /\[::ffff:127\.0\.0\.1\]:\d+ is not one this service may connect to/);
    });
  });
}
