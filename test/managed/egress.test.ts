import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { createEmptyNode } from '../nodes/helpers.ts';
import { startWebServer } from './probe-servers.ts';

const URL = '/v4/managed/services';

/** Every spelling of an address a tenant must not make the service reach, as a url and as a tcp address. */
const REFUSED_URLS = [
  'http://127.0.0.1:5432/',
  'http://2130706433/admin/info',
  'http://127.1/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://0.0.0.0/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::1]:8080/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/',
  'http://[fe80::1]/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
];
const REFUSED_TCP = [
  '127.0.0.1:5432',
  '0x7f.1:5432',
  '0.0.0.0:22',
  '[::ffff:127.0.0.1]:5432',
  '[::1]:5432',
  '[fe80::1]:22',
  '169.254.169.254:80',
  '224.0.0.1:80',
  '255.255.255.255:80',
];
/** Private addresses: refused (with a region too) unless they are the account's own nodes'. */
const REFUSED_PRIVATE = ['http://10.0.0.5/', 'http://192.168.130.4:8080/', 'http://[fd12:3456::1]/'];

async function post(app: TestApp, body: Record<string, unknown>, token?: string) {
  return app.request('POST', URL, { body: { label: 'watched', timeout: 2, ...body }, ...(token ? { token } : {}) });
}

async function addService(app: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await post(app, body, token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: number; status: string; region: string | null };
}

function assertRefusedAddress(res: { status: number; body: { errors?: { field: string; reason: string }[] } }, what: string) {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
  assert.deepEqual(
    res.body.errors?.map((e) => e.field),
    ['address'],
    what,
  );
}

async function serviceOf(app: TestApp, id: number) {
  const res = await app.request('GET', `${URL}/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { status: string; address: string };
}

async function lastProblem(app: TestApp, id: number): Promise<string | null> {
  const row = await app.runtime.ctx.db
    .selectFrom('managed_services')
    .select('last_problem')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.last_problem;
}

/** A TCP server on 127.0.0.1 that counts the connections it gets. */
async function countingServer(t: { after(fn: () => unknown): void }): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections };
}

for (const dialect of DIALECTS) {
  describe(`managed services and the egress policy [${dialect}]`, () => {
    test('every spelling of loopback, unspecified, link-local, metadata, multicast, broadcast and private addresses is a 400 on address, at create and at update', async (t) => {
      // The test app runs no worker: nothing is probed whatever is accepted.
      const app = await buildTestApp(t, { dialect });
      for (const address of REFUSED_URLS) assertRefusedAddress(await post(app, { service_type: 'url', address }), address);
      for (const address of REFUSED_TCP) assertRefusedAddress(await post(app, { service_type: 'tcp', address }), address);
      for (const address of REFUSED_PRIVATE) {
        assertRefusedAddress(await post(app, { service_type: 'url', address, region: 'us-east' }), address);
      }
      assertRefusedAddress(await post(app, { service_type: 'tcp', address: '2130706433:5432' }), 'a decimal IPv4 host');
      const reason = (await post(app, { service_type: 'url', address: 'http://0x7f.1/' })).body.errors[0].reason;
      assert.match(reason, /127\.0\.0\.1 is a loopback address/);
      assert.equal((await app.request('GET', URL)).body.results, 0, 'nothing was made');

      const kept = await addService(app, { service_type: 'url', address: 'https://example.org/health' });
      for (const address of REFUSED_URLS) {
        assertRefusedAddress(await app.request('PUT', `${URL}/${kept.id}`, { body: { address } }), `PUT ${address}`);
      }
      for (const address of REFUSED_TCP) {
        const res = await app.request('PUT', `${URL}/${kept.id}`, { body: { service_type: 'tcp', address } });
        assertRefusedAddress(res, `PUT tcp ${address}`);
      }
      assert.equal((await serviceOf(app, kept.id)).address, 'https://example.org/health', 'the service is unchanged');
      const tcp = await addService(app, { service_type: 'tcp', address: '192.0.2.10:5432' });
      assert.equal(tcp.status, 'pending', 'a documentation address stands for a public one');
    });

    test('CUMULO_EGRESS_ALLOW lets a probe reach loopback; CUMULO_EGRESS_DENY refuses, over ALLOW too', async (t) => {
      // The next round a day later (86 s at the tests' time scale): the first probe is counted alone.
      const allowed = await buildTestApp(t, { dialect, config: { ...LOOPBACK_EGRESS, managedProbeIntervalSec: 86_400 } });
      const web = await startWebServer(t);
      const service = await addService(allowed, { service_type: 'url', address: `${web.url}/health` });
      await runDueJobs(allowed);
      assert.equal((await serviceOf(allowed, service.id)).status, 'ok');
      assert.equal(web.requests, 1);

      const denied = await buildTestApp(t, {
        dialect,
        config: { egressAllow: ['127.0.0.0/8', '::1/128'], egressDeny: ['93.184.216.0/24', '127.0.0.0/8', '::1/128'] },
      });
      assertRefusedAddress(
        await post(denied, { service_type: 'url', address: 'http://93.184.216.34/' }),
        'a denied public address',
      );
      assertRefusedAddress(
        await post(denied, { service_type: 'tcp', address: `127.0.0.1:${web.url.split(':').at(-1)}` }),
        'DENY over ALLOW',
      );
      const byName = await addService(denied, { service_type: 'url', address: web.url.replace('127.0.0.1', 'localhost') });
      await runDueJobs(denied);
      assert.equal((await serviceOf(denied, byName.id)).status, 'problem');
      assert.equal(await lastProblem(denied, byName.id), 'address not allowed');
      assert.equal(web.requests, 1, 'the denied probe sent nothing');
    });

    test('a name that resolves to loopback is accepted, then refused when probed: nothing is sent', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const web = await startWebServer(t);
      const tcp = await countingServer(t);
      const url = await addService(app, { service_type: 'url', address: web.url.replace('127.0.0.1', 'localhost') });
      const port = await addService(app, { label: 'database', service_type: 'tcp', address: `localhost:${tcp.port}` });
      await runDueJobs(app);
      for (const id of [url.id, port.id]) {
        assert.equal((await serviceOf(app, id)).status, 'problem');
        assert.equal(await lastProblem(app, id), 'address not allowed');
      }
      assert.deepEqual([web.requests, tcp.connections()], [0, 0], 'no request, no connection');
    });

    test("the account's own node addresses are accepted (a private one with its region), another account's are not", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = (await createEmptyNode(app, { private_ip: true })) as { ipv4: string[] };
      const [publicIp] = node.ipv4;
      const privateIp = node.ipv4.find((a) => a.startsWith('192.168.'));
      assert.ok(publicIp && privateIp, JSON.stringify(node.ipv4));
      const onPublic = await addService(app, { service_type: 'tcp', address: `${publicIp}:22` });
      assert.equal(onPublic.region, null);
      const onPrivate = await addService(app, { service_type: 'url', address: `http://${privateIp}:8080/`, region: 'us-east' });
      assert.equal(onPrivate.region, 'us-east');
      const noRegion = await post(app, { service_type: 'url', address: `http://${privateIp}/` });
      assert.deepEqual(
        [noRegion.status, noRegion.body.errors?.map((e: { field: string }) => e.field)],
        [400, ['region']],
        'the region rule still applies to a private address',
      );
      const other = await newAccount(app);
      assertRefusedAddress(
        await post(app, { service_type: 'url', address: `http://${privateIp}/`, region: 'us-east' }, other.token),
        'another account',
      );
      assertRefusedAddress(await post(app, { service_type: 'tcp', address: `${publicIp}:22` }, other.token), 'another account');
    });

    test('the service never probes itself: its own listening address is refused even when ALLOW covers loopback', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const server = app.runtime.app;
      assert.ok(server);
      await server.listen({ port: 0, host: '127.0.0.1' });
      const { port } = server.server.address() as net.AddressInfo;
      for (const address of [`127.0.0.1:${port}`, `0.0.0.0:${port}`, `[::ffff:127.0.0.1]:${port}`]) {
        const res = await post(app, { service_type: 'tcp', address });
        assertRefusedAddress(res, address);
        assert.match(res.body.errors[0].reason, /an address this service listens on/);
      }
      assertRefusedAddress(await post(app, { service_type: 'url', address: `http://127.1:${port}/admin/info` }), 'url');
      const byName = await addService(app, { service_type: 'url', address: `http://localhost:${port}/admin/info` });
      await runDueJobs(app);
      assert.equal(await lastProblem(app, byName.id), 'address not allowed');
      const elsewhere = await addService(app, { service_type: 'tcp', address: `127.0.0.1:${port + 1}` });
      assert.equal(elsewhere.status, 'pending', 'another loopback port is allowed');
    });
  });
}
