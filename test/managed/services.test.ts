import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS, type TestApp } from '../helpers/app.ts';

const URL_SERVICE = { label: 'prod-web', service_type: 'url', address: 'https://example.org/health?full=1', timeout: 30 };

async function addService(app: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await app.request('POST', '/v4/managed/services', { body, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, `add service ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function refused(app: TestApp, method: string, url: string, body: unknown, field: string) {
  const res = await app.request(method, url, { body });
  assert.equal(res.status, 400, `${method} ${url} ${JSON.stringify(body)} answered ${res.status}: ${JSON.stringify(res.body)}`);
  assert.ok(
    res.body.errors.some((e: { field?: string }) => e.field === field),
    `the refusal names ${field}: ${JSON.stringify(res.body)}`,
  );
  return res.body.errors;
}

async function serviceCount(app: TestApp): Promise<number> {
  return (await app.runtime.ctx.db.selectFrom('managed_services').select('id').execute()).length;
}

for (const dialect of DIALECTS) {
  describe(`managed services [${dialect}]`, () => {
    test('create answers every field with the defaults, pending; view, list, update and delete', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const made = await addService(app, { ...URL_SERVICE, address: 'https://example.org/health?full=1#monitor' });
      assert.deepEqual(
        { ...made, created: undefined, updated: undefined },
        {
          id: made.id,
          label: 'prod-web',
          service_type: 'url',
          address: 'https://example.org/health?full=1',
          timeout: 30,
          body: null,
          consultation_group: '',
          notes: null,
          region: null,
          credentials: [],
          status: 'pending',
          created: undefined,
          updated: undefined,
        },
        'the fragment is dropped, the query kept',
      );
      assert.match(made.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      assert.deepEqual((await app.request('GET', `/v4/managed/services/${made.id}`)).body, made);

      const tcp = await addService(app, {
        label: 'db primary',
        service_type: 'tcp',
        address: 'db.example.org:5432',
        timeout: 10,
        body: null,
        consultation_group: 'on-call',
        notes: 'the database',
      });
      const list = await app.request('GET', '/v4/managed/services');
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((s: { id: number }) => s.id),
        [made.id, tcp.id],
      );
      assert.deepEqual([list.body.page, list.body.pages, list.body.results], [1, 1, 2]);
      const paged = await app.request('GET', '/v4/managed/services?page=1&page_size=25');
      assert.deepEqual([paged.body.page, paged.body.pages, paged.body.data.length], [1, 1, 2]);
      assert.equal((await app.request('GET', '/v4/managed/services?page_size=24')).status, 400, 'page sizes are 25..500');

      const changed = await app.request('PUT', `/v4/managed/services/${tcp.id}`, {
        body: { label: 'db-primary', notes: null, consultation_group: 'dba' },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(
        [changed.body.label, changed.body.notes, changed.body.consultation_group, changed.body.address, changed.body.timeout],
        ['db-primary', null, 'dba', 'db.example.org:5432', 10],
      );
      assert.equal(changed.body.status, 'pending');

      const gone = await app.request('DELETE', `/v4/managed/services/${tcp.id}`);
      assert.deepEqual([gone.status, gone.body], [200, {}]);
      assert.equal((await app.request('GET', `/v4/managed/services/${tcp.id}`)).status, 404);
      assert.equal((await app.request('DELETE', `/v4/managed/services/${tcp.id}`)).status, 404);

      const events = (await app.request('GET', '/v4/account/events')).body.data as {
        action: string;
        entity: { id: number; type: string; url: string };
      }[];
      const ofServices = events.filter((e) => e.entity?.type === 'managed_service');
      assert.deepEqual(
        ofServices.map((e) => [e.action, e.entity.id]),
        [
          ['managed_service_delete', tcp.id],
          ['managed_service_create', tcp.id],
          ['managed_service_create', made.id],
        ],
      );
      assert.equal(ofServices[2]?.entity.url, `/v4/managed/services/${made.id}`);
    });

    test('bad input is refused with the field named, and nothing is written', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const url = '/v4/managed/services';
      await refused(app, 'POST', url, { ...URL_SERVICE, label: 'ab' }, 'label');
      await refused(app, 'POST', url, { ...URL_SERVICE, label: 'x'.repeat(65) }, 'label');
      await refused(app, 'POST', url, { ...URL_SERVICE, label: 'web/1' }, 'label');
      await refused(app, 'POST', url, { ...URL_SERVICE, service_type: 'icmp' }, 'service_type');
      await refused(app, 'POST', url, { ...URL_SERVICE, timeout: 0 }, 'timeout');
      await refused(app, 'POST', url, { ...URL_SERVICE, timeout: 256 }, 'timeout');
      await refused(app, 'POST', url, { ...URL_SERVICE, body: 'x'.repeat(101) }, 'body');
      await refused(app, 'POST', url, { ...URL_SERVICE, consultation_group: 'x'.repeat(51) }, 'consultation_group');
      await refused(app, 'POST', url, { ...URL_SERVICE, address: 'ab' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, address: 'ftp://example.org/' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, address: 'example.org' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, address: 'https://user:pw@example.org/' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, service_type: 'tcp', address: 'example.org' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, service_type: 'tcp', address: 'example.org:0' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, service_type: 'tcp', address: 'example.org:65536' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, service_type: 'tcp', address: 'http://example.org:80' }, 'address');
      await refused(app, 'POST', url, { ...URL_SERVICE, credentials: [999] }, 'credentials');
      const errors = await refused(app, 'POST', url, {}, 'label');
      assert.deepEqual(errors.map((e: { field: string }) => e.field).sort(), ['address', 'label', 'service_type', 'timeout']);
      assert.equal(await serviceCount(app), 0);

      const made = await addService(app, URL_SERVICE);
      const one = `${url}/${made.id}`;
      await refused(app, 'PUT', one, { service_type: 'tcp' }, 'address');
      await refused(app, 'PUT', one, { timeout: 300 }, 'timeout');
      await refused(app, 'PUT', one, { region: 'us-east' }, 'region');
      const unchanged = await app.request('GET', one);
      assert.deepEqual(unchanged.body, made, 'a refused update changes nothing');
      assert.equal((await app.request('PUT', `${url}/99999`, { body: { label: 'other' } })).status, 404);
    });

    test('region: required for a private (RFC 1918) address, refused otherwise; loopback needs none', async (t) => {
      // The operator allows these ranges: the region rule still applies to the private ones.
      const egressAllow = [...(LOOPBACK_EGRESS.egressAllow ?? []), '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];
      const app = await buildTestApp(t, { dialect, config: { egressAllow } });
      const url = '/v4/managed/services';
      const tcp = { label: 'private db', service_type: 'tcp', timeout: 5 };
      for (const address of ['10.1.2.3:5432', '172.16.0.9:22', '192.168.130.4:80']) {
        await refused(app, 'POST', url, { ...tcp, address }, 'region');
      }
      await refused(app, 'POST', url, { ...tcp, address: '10.1.2.3:5432', region: 'nowhere-1' }, 'region');
      await refused(app, 'POST', url, { ...URL_SERVICE, address: 'http://192.168.130.4/', region: 'nowhere-1' }, 'region');
      await refused(app, 'POST', url, { ...URL_SERVICE, region: 'us-east' }, 'region');
      await refused(app, 'POST', url, { ...tcp, address: '172.32.0.1:22', region: 'us-east' }, 'region');
      assert.equal(await serviceCount(app), 0);

      const inRegion = await addService(app, { ...URL_SERVICE, address: 'http://192.168.130.4:8080/', region: 'us-east' });
      assert.equal(inRegion.region, 'us-east');
      for (const address of ['127.0.0.1:8080', '[::1]:8080', 'localhost:8080']) {
        const local = await addService(app, { ...tcp, address });
        assert.equal(local.region, null, `${address} takes no region`);
      }
      // Moving the service to a public address drops the region it no longer needs.
      const moved = await app.request('PUT', `${url}/${inRegion.id}`, { body: { address: 'https://example.org/' } });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.equal(moved.body.region, null);
      await refused(app, 'PUT', `${url}/${inRegion.id}`, { address: 'http://10.0.0.5/' }, 'region');
      const back = await app.request('PUT', `${url}/${inRegion.id}`, {
        body: { address: 'http://10.0.0.5/', region: 'us-east' },
      });
      assert.deepEqual([back.status, back.body.region], [200, 'us-east']);
    });

    test('credentials must be the account’s; one deleted or revoked drops out of every service', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const other = await newAccount(app);
      const cred = async (label: string, token?: string) => {
        const res = await app.request('POST', '/v4/managed/credentials', {
          body: { label, password: 'service-secret-1' },
          ...(token ? { token } : {}),
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.id as number;
      };
      const [a, b, c] = [await cred('cred-a'), await cred('cred-b'), await cred('cred-c')];
      const foreign = await cred('cred-foreign', other.token);
      await refused(app, 'POST', '/v4/managed/services', { ...URL_SERVICE, credentials: [a, foreign] }, 'credentials');
      const made = await addService(app, { ...URL_SERVICE, credentials: [b, a, b] });
      assert.deepEqual(made.credentials, [b, a]);
      const second = await addService(app, { ...URL_SERVICE, label: 'second', credentials: [a, c] });

      assert.equal((await app.request('DELETE', `/v4/managed/credentials/${a}`)).status, 200);
      assert.equal((await app.request('POST', `/v4/managed/credentials/${c}/revoke`)).status, 200);
      assert.deepEqual((await app.request('GET', `/v4/managed/services/${made.id}`)).body.credentials, [b]);
      const list = await app.request('GET', '/v4/managed/services');
      assert.deepEqual(
        list.body.data.map((s: { credentials: number[] }) => s.credentials),
        [[b], []],
      );
      await refused(app, 'PUT', `/v4/managed/services/${second.id}`, { credentials: [a] }, 'credentials');
      const set = await app.request('PUT', `/v4/managed/services/${second.id}`, { body: { credentials: [b] } });
      assert.deepEqual(set.body.credentials, [b]);
    });

    test('each account sees only its own services', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const other = await newAccount(app);
      const mine = await addService(app, URL_SERVICE);
      const theirs = await addService(app, { ...URL_SERVICE, label: 'theirs' }, other.token);
      const list = await app.request('GET', '/v4/managed/services', { token: other.token });
      assert.deepEqual(
        list.body.data.map((s: { id: number }) => s.id),
        [theirs.id],
      );
      for (const [method, suffix] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/disable'],
        ['POST', '/enable'],
      ] as const) {
        const res = await app.request(method, `/v4/managed/services/${mine.id}${suffix}`, {
          token: other.token,
          ...(method === 'PUT' ? { body: { label: 'taken' } } : {}),
        });
        assert.equal(res.status, 404, `${method} ${suffix} of another account's service`);
      }
      assert.equal((await app.request('GET', `/v4/managed/services/${mine.id}`)).body.label, 'prod-web');
    });

    test('disable and enable: disabled, then pending again; twice is the same as once', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const made = await addService(app, URL_SERVICE);
      const off = await app.request('POST', `/v4/managed/services/${made.id}/disable`, { body: undefined });
      assert.deepEqual([off.status, off.body.status], [200, 'disabled']);
      const again = await app.request('POST', `/v4/managed/services/${made.id}/disable`);
      assert.deepEqual([again.status, again.body.status], [200, 'disabled']);
      // A change while disabled does not start probing.
      const edited = await app.request('PUT', `/v4/managed/services/${made.id}`, { body: { address: 'https://example.net/' } });
      assert.equal(edited.body.status, 'disabled');
      const on = await app.request('POST', `/v4/managed/services/${made.id}/enable`);
      assert.deepEqual([on.status, on.body.status, on.body.address], [200, 'pending', 'https://example.net/']);
      const jobs = await app.runtime.ctx.db
        .selectFrom('jobs')
        .select(['kind', 'payload'])
        .where('kind', '=', 'managed.probe')
        .execute();
      assert.deepEqual(
        jobs.map((j) => JSON.parse(j.payload).service_id),
        [made.id],
        'one probe is queued for the service, however often it was asked for',
      );
    });

    test('20 parallel updates of one service each leave a whole, valid service', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const made = await addService(app, URL_SERVICE);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.request('PUT', `/v4/managed/services/${made.id}`, {
            body: { label: `label-${i}`, address: `https://example.org/${i}`, timeout: i + 1 },
          }),
        ),
      );
      assert.deepEqual(new Set(replies.map((r) => r.status)), new Set([200]));
      const final = (await app.request('GET', `/v4/managed/services/${made.id}`)).body;
      const i = Number(final.label.slice('label-'.length));
      assert.deepEqual([final.address, final.timeout], [`https://example.org/${i}`, i + 1], 'the fields of one update');
      const row = await app.runtime.ctx.db
        .selectFrom('managed_services')
        .select('probe_epoch')
        .where('id', '=', made.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.probe_epoch, 21, 'every update counted');
    });
  });
}
