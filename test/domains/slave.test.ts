import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { AUTHORITATIVE_ANSWER } from 'dns-packet';
import { Rcode, rcodeOf } from '../../src/dns/message.ts';
import { dig, udpExchange } from '../dns/helpers.ts';
import { buildTestApp, DIALECTS, type Dialect, LOOPBACK_EGRESS, type TestApp, tempDir } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { needs } from '../helpers/system-tools.ts';
import { addRecord, checkZone, createDomain, serialOf } from './helpers.ts';

type BuildContext = Parameters<typeof buildTestApp>[0];

/** A port of 127.0.0.1 nothing listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * An installation with its nameserver on 127.0.0.1 (`listenPort`, or a free one), its slaves asking
 * masters on `masterPort`, and NOTIFY going to `notifyPort`.
 */
async function servingApp(
  t: BuildContext,
  dialect: Dialect,
  masterPort?: number,
  ports: { listenPort?: number; notifyPort?: number } = {},
) {
  const app = await buildTestApp(t, {
    dialect,
    config: {
      ...LOOPBACK_EGRESS,
      dnsListen: `127.0.0.1:${ports.listenPort ?? 0}`,
      ...(masterPort ? { dnsMasterPort: masterPort } : {}),
      ...(ports.notifyPort ? { dnsNotifyPort: ports.notifyPort } : {}),
    },
  });
  const address = app.runtime.nameserver?.address;
  assert.ok(address, 'the nameserver listens');
  return { app, port: Number(address.split(':').at(-1)) };
}

const answers = async (port: number, name: string, type: string) =>
  (await dig(port, name, type)).answer.map((r) => r.data).sort();

async function zoneFile(app: TestApp, domainId: number): Promise<string[]> {
  const res = await app.request('GET', `/v4/domains/${domainId}/zone-file`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.zone_file;
}

async function slaveState(app: TestApp, domainId: number) {
  return app.runtime.ctx.db
    .selectFrom('domain_slave_zones')
    .selectAll()
    .where('domain_id', '=', domainId)
    .executeTakeFirstOrThrow();
}

const OPCODE_NOTIFY = 4;

/** A NOTIFY (RFC 1996) that `zone` changed, to the nameserver at `port`, from `from`: the reply's code, opcode and AA flag. */
async function notify(port: number, zone: string, from: string) {
  const query = { type: 'query' as const, id: 7, flags: OPCODE_NOTIFY << 11, questions: [{ name: zone, type: 'SOA' as const }] };
  const reply = await udpExchange(port, query, from);
  const flags = reply.flags ?? 0;
  return { id: reply.id, rcode: rcodeOf(reply), opcode: (flags >> 11) & 0xf, aa: (flags & AUTHORITATIVE_ANSWER) !== 0 };
}

/** Moves the slave installation's clock on by `seconds` and runs what fell due (its checks and renders). */
async function later(app: TestApp, seconds: number): Promise<void> {
  app.runtime.ctx.clock.advance(seconds * 1000);
  await runDueJobs(app);
}

for (const dialect of DIALECTS) {
  describe(`slave domains follow their masters by SOA check and AXFR [${dialect}]`, needs('dig'), () => {
    test(
      'a slave transfers its master, serves and renders the copy, and follows changes at the refresh time',
      needs('named-checkzone'),
      async (t) => {
        const master = await servingApp(t, dialect);
        const slave = await servingApp(t, dialect, master.port);
        const zone = await createDomain(master.app, { domain: 'follow.example', axfr_ips: ['127.0.0.1'] });
        await addRecord(master.app, zone.id, { type: 'A', name: 'www', target: '192.0.2.10' });
        await addRecord(master.app, zone.id, { type: 'MX', name: '', target: 'mail.follow.example', priority: 10 });

        const res = await slave.app.request('POST', '/v4/domains', {
          body: { domain: 'follow.example', type: 'slave', master_ips: ['127.0.0.1'], refresh_sec: 300, retry_sec: 300 },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const copy = res.body;
        assert.equal((await dig(slave.port, 'www.follow.example', 'A')).status, 'REFUSED', 'nothing served before a transfer');

        await runDueJobs(slave.app);
        const served = await dig(slave.port, 'www.follow.example', 'A');
        assert.equal(served.status, 'NOERROR');
        assert.ok(served.flags.includes('aa'), 'authoritative for the copy');
        assert.deepEqual(
          served.answer.map((r) => r.data),
          ['192.0.2.10'],
        );
        assert.deepEqual(await answers(slave.port, 'follow.example', 'MX'), ['10 mail.follow.example.']);
        assert.equal((await dig(slave.port, 'nothing.follow.example', 'A')).status, 'NXDOMAIN');
        const masterSoa = await answers(master.port, 'follow.example', 'SOA');
        assert.deepEqual(await answers(slave.port, 'follow.example', 'SOA'), masterSoa, "the master's SOA, serial and all");

        const lines = await zoneFile(slave.app, copy.id);
        assert.equal(serialOf(lines), Number(masterSoa[0]?.split(' ')[2]), 'the copy is rendered with the serial it has');
        checkZone(tempDir(t), 'follow.example', lines);
        assert.deepEqual((await slave.app.request('GET', `/v4/domains/${copy.id}/records`)).body.data, []);
        const own = await slave.app.request('POST', `/v4/domains/${copy.id}/records`, {
          body: { type: 'A', name: 'extra', target: '192.0.2.99' },
        });
        assert.equal(own.status, 400, 'records of a slave are changed on its master');
        assert.match(own.body.errors[0].reason, /slave domain/);

        // A change on the master reaches the slave at its next check, not before.
        await addRecord(master.app, zone.id, { type: 'A', name: 'new', target: '192.0.2.11' });
        assert.equal((await dig(slave.port, 'new.follow.example', 'A')).status, 'NXDOMAIN');
        const before = await slaveState(slave.app, copy.id);
        await later(slave.app, 290);
        assert.equal((await dig(slave.port, 'new.follow.example', 'A')).status, 'NXDOMAIN', 'not before the refresh time');
        await later(slave.app, 10);
        assert.deepEqual(await answers(slave.port, 'new.follow.example', 'A'), ['192.0.2.11']);
        const after = await slaveState(slave.app, copy.id);
        assert.ok(Number(after.serial) > Number(before.serial), 'the newer serial was transferred');
        assert.ok(serialOf(await zoneFile(slave.app, copy.id)) === Number(after.serial), 'and rendered');

        // No change on the master: the check finds the serial current and transfers nothing.
        await later(slave.app, 300);
        const current = await slaveState(slave.app, copy.id);
        assert.equal(current.transferred, after.transferred, 'no transfer for the same serial');
        assert.notEqual(current.checked, after.checked, 'but the check is recorded');
        assert.equal(current.last_error, null);
      },
    );

    test('masters that cannot be asked: retried, the copy served until it expires, and a change of masters asks at once', async (t) => {
      const master = await servingApp(t, dialect);
      const slave = await servingApp(t, dialect, master.port);
      const zone = await createDomain(master.app, { domain: 'fragile.example', axfr_ips: ['127.0.0.1'] });
      await addRecord(master.app, zone.id, { type: 'A', name: 'www', target: '192.0.2.20' });

      // 127.0.0.2 has no nameserver on that port: the check fails and is retried at the retry time.
      const res = await slave.app.request('POST', '/v4/domains', {
        body: {
          domain: 'fragile.example',
          type: 'slave',
          master_ips: ['127.0.0.2'],
          refresh_sec: 300,
          retry_sec: 3600,
          expire_sec: 7200,
        },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const copy = res.body;
      await runDueJobs(slave.app);
      const failed = await slaveState(slave.app, copy.id);
      assert.match(failed.last_error ?? '', /127\.0\.0\.2/, 'the failure names the master');
      assert.equal(failed.records, null);
      assert.equal((await dig(slave.port, 'www.fragile.example', 'A')).status, 'REFUSED');
      // The domain says why, as clients read it.
      const shown = (await slave.app.request('GET', `/v4/domains/${copy.id}`)).body;
      assert.equal(shown.errors, failed.last_error);
      assert.deepEqual(
        (await slave.app.request('GET', '/v4/domains')).body.data.map((d: { errors: string }) => d.errors),
        [failed.last_error],
      );

      const put = await slave.app.request('PUT', `/v4/domains/${copy.id}`, { body: { master_ips: ['127.0.0.2', '127.0.0.1'] } });
      assert.equal(put.status, 200);
      await runDueJobs(slave.app);
      assert.deepEqual(await answers(slave.port, 'www.fragile.example', 'A'), ['192.0.2.20'], 'the next master answered at once');
      assert.equal((await slaveState(slave.app, copy.id)).master, `127.0.0.1:${master.port}`);
      assert.equal((await slave.app.request('GET', `/v4/domains/${copy.id}`)).body.errors, '');

      // The master stops answering for the zone: the copy stays served until the last good check
      // plus the expire time, with checks at the retry time meanwhile.
      await master.app.request('PUT', `/v4/domains/${zone.id}`, { body: { status: 'disabled' } });
      await later(slave.app, 300);
      const refused = await slaveState(slave.app, copy.id);
      assert.match(refused.last_error ?? '', /refused/);
      assert.deepEqual(await answers(slave.port, 'www.fragile.example', 'A'), ['192.0.2.20'], 'still served');
      await later(slave.app, 3600);
      assert.deepEqual(await answers(slave.port, 'www.fragile.example', 'A'), ['192.0.2.20'], 'still served before it expires');
      await later(slave.app, 3600);
      assert.equal((await dig(slave.port, 'www.fragile.example', 'A')).status, 'REFUSED', 'an expired copy is not served');

      // The master back: the next check brings the copy back.
      await master.app.request('PUT', `/v4/domains/${zone.id}`, { body: { status: 'active' } });
      await later(slave.app, 3600);
      assert.deepEqual(await answers(slave.port, 'www.fragile.example', 'A'), ['192.0.2.20']);
    });

    test('a disabled slave is neither served nor checked; enabled again, it checks at once', async (t) => {
      const master = await servingApp(t, dialect);
      const slave = await servingApp(t, dialect, master.port);
      const zone = await createDomain(master.app, { domain: 'paused.example', axfr_ips: ['127.0.0.1'] });
      await addRecord(master.app, zone.id, { type: 'TXT', name: 'note', target: 'first' });
      const copy = await createDomain(slave.app, { domain: 'paused.example', type: 'slave', master_ips: ['127.0.0.1'] });
      await runDueJobs(slave.app);
      assert.deepEqual(await answers(slave.port, 'note.paused.example', 'TXT'), ['"first"']);

      await slave.app.request('PUT', `/v4/domains/${copy.id}`, { body: { status: 'disabled' } });
      assert.equal((await dig(slave.port, 'note.paused.example', 'A')).status, 'REFUSED');
      await later(slave.app, 14400);
      const jobs = () =>
        slave.app.runtime.ctx.db.selectFrom('jobs').select('kind').where('kind', '=', 'domain.refresh_slave').execute();
      assert.deepEqual(await jobs(), [], 'the check due meanwhile ended without queueing another');

      const records = await master.app.request('GET', `/v4/domains/${zone.id}/records`);
      await master.app.request('PUT', `/v4/domains/${zone.id}/records/${records.body.data[0].id}`, {
        body: { target: 'second' },
      });
      await slave.app.request('PUT', `/v4/domains/${copy.id}`, { body: { status: 'active' } });
      await runDueJobs(slave.app);
      assert.deepEqual(await answers(slave.port, 'note.paused.example', 'TXT'), ['"second"']);
    });

    test("a NOTIFY from a slave domain's master checks it at once; from anyone else it is refused", async (t) => {
      const master = await servingApp(t, dialect);
      const slave = await servingApp(t, dialect, master.port);
      const zone = await createDomain(master.app, { domain: 'notified.example', axfr_ips: ['127.0.0.1'] });
      await addRecord(master.app, zone.id, { type: 'A', name: 'www', target: '192.0.2.30' });
      const copy = await createDomain(slave.app, { domain: 'notified.example', type: 'slave', master_ips: ['127.0.0.1'] });
      await runDueJobs(slave.app);
      await addRecord(master.app, zone.id, { type: 'A', name: 'new', target: '192.0.2.31' });

      const stranger = await notify(slave.port, 'notified.example', '127.0.0.2');
      assert.equal(stranger.rcode, Rcode.REFUSED, 'not one of its masters');
      assert.equal(await runDueJobs(slave.app), 0, 'and nothing was brought forward');
      assert.equal((await notify(slave.port, 'elsewhere.example', '127.0.0.1')).rcode, Rcode.REFUSED, 'not a slave zone');
      assert.equal((await notify(master.port, 'notified.example', '127.0.0.1')).rcode, Rcode.REFUSED, 'a master zone');

      const accepted = await notify(slave.port, 'Notified.Example.', '127.0.0.1');
      assert.deepEqual(accepted, { id: 7, rcode: Rcode.NOERROR, opcode: OPCODE_NOTIFY, aa: true });
      assert.equal((await dig(slave.port, 'new.notified.example', 'A')).status, 'NXDOMAIN', 'the check runs on the worker');
      await runDueJobs(slave.app);
      assert.deepEqual(
        await answers(slave.port, 'new.notified.example', 'A'),
        ['192.0.2.31'],
        'without waiting for the refresh time',
      );

      // Renamed, the slave's copy is of another zone: it is served under neither name.
      await slave.app.request('PUT', `/v4/domains/${copy.id}`, { body: { domain: 'renamed.example' } });
      assert.equal((await dig(slave.port, 'www.notified.example', 'A')).status, 'REFUSED');
      assert.equal((await dig(slave.port, 'www.renamed.example', 'A')).status, 'REFUSED');
    });

    test('a master sends NOTIFY to its axfr_ips when its zone changes: the slave follows without waiting', async (t) => {
      const slavePort = await freePort();
      const master = await servingApp(t, dialect, undefined, { notifyPort: slavePort });
      const slave = await servingApp(t, dialect, master.port, { listenPort: slavePort });
      const zone = await createDomain(master.app, { domain: 'pushed.example', axfr_ips: ['127.0.0.1'] });
      await createDomain(slave.app, { domain: 'pushed.example', type: 'slave', master_ips: ['127.0.0.1'] });
      await runDueJobs(master.app);
      await runDueJobs(slave.app);
      assert.equal((await dig(slave.port, 'www.pushed.example', 'A')).status, 'NXDOMAIN');

      await addRecord(master.app, zone.id, { type: 'A', name: 'www', target: '192.0.2.40' });
      assert.equal(await runDueJobs(slave.app), 0, 'nothing due on the slave before the master renders');
      await runDueJobs(master.app);
      await runDueJobs(slave.app);
      assert.deepEqual(
        await answers(slave.port, 'www.pushed.example', 'A'),
        ['192.0.2.40'],
        'the NOTIFY brought the check forward',
      );
    });
  });
}
