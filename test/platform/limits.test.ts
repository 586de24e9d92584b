import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { Zone } from '../../src/dns/zone.ts';
import type { Principal } from '../../src/domain/account/principal.ts';
import { importDomain } from '../../src/domain/domains/domain-import.service.ts';
import { ApiError } from '../../src/errors.ts';
import { createDomain, freshDomain } from '../domains/helpers.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';

/** One kind of thing an account (or a domain) may have only so many of. */
interface Limited {
  name: string;
  setting: keyof typeof SETTINGS;
  /** Where they are created and listed; made before the first create when needed. */
  path: (app: TestApp) => Promise<string>;
  body: (i: number) => Record<string, unknown>;
  field: string | undefined;
  reason: RegExp;
}

const SETTINGS = {
  limitDomains: 'CUMULO_LIMIT_DOMAINS',
  limitRecordsPerDomain: 'CUMULO_LIMIT_RECORDS_PER_DOMAIN',
  limitFirewalls: 'CUMULO_LIMIT_FIREWALLS',
  limitManagedServices: 'CUMULO_LIMIT_MANAGED_SERVICES',
  limitTags: 'CUMULO_LIMIT_TAGS',
} as const;

const KINDS: Limited[] = [
  {
    name: 'domains',
    setting: 'limitDomains',
    path: async () => '/v4/domains',
    body: () => ({ domain: freshDomain('limit'), type: 'master', soa_email: 'hostmaster@example.org' }),
    field: 'domain',
    reason: /at most \d+ domains/,
  },
  {
    name: 'records of a domain',
    setting: 'limitRecordsPerDomain',
    path: async (app) => `/v4/domains/${(await createDomain(app)).id}/records`,
    body: (i) => ({ type: 'A', name: `host${i}`, target: '192.0.2.1' }),
    field: undefined,
    reason: /domain may have at most \d+ records/,
  },
  {
    name: 'firewalls',
    setting: 'limitFirewalls',
    path: async () => '/v4/networking/firewalls',
    body: (i) => ({ label: `fw-${i}`, rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' } }),
    field: 'label',
    reason: /at most \d+ firewalls/,
  },
  {
    name: 'managed services',
    setting: 'limitManagedServices',
    path: async () => '/v4/managed/services',
    // Never probed: test apps run no worker.
    body: (i) => ({ label: `svc-${i}`, service_type: 'tcp', address: '192.0.2.10:80', timeout: 5 }),
    field: 'label',
    reason: /at most \d+ managed services/,
  },
  {
    name: 'tags',
    setting: 'limitTags',
    path: async () => '/v4/tags',
    body: (i) => ({ label: `tag-${i}` }),
    field: 'label',
    reason: /at most \d+ tags/,
  },
];

async function countAt(app: TestApp, path: string): Promise<number> {
  const res = await app.request('GET', path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.results;
}

describe('CUMULO_LIMIT_*', () => {
  test('defaults, set by the operator, whole numbers of at least 1', () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      Object.keys(SETTINGS).map((k) => defaults[k as keyof typeof SETTINGS]),
      [1000, 10_000, 100, 100, 1000],
    );
    for (const [key, env] of Object.entries(SETTINGS)) {
      assert.equal(loadConfig({ [env]: '7' })[key as keyof typeof SETTINGS], 7, env);
      assert.throws(() => loadConfig({ [env]: '0' }), ConfigError);
      assert.throws(() => loadConfig({ [env]: 'many' }), new RegExp(env));
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`per-account limits [${dialect}]`, () => {
    for (const kind of KINDS) {
      test(`${kind.name}: at the limit the next create is a 400 naming the limit, and changes nothing`, async (t) => {
        const app = await buildTestApp(t, { dialect, config: { [kind.setting]: 3 } });
        const path = await kind.path(app);
        for (let i = 0; i < 3; i++) {
          const res = await app.request('POST', path, { body: kind.body(i) });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
        const refused = await app.request('POST', path, { body: kind.body(3) });
        assert.equal(refused.status, 400);
        assert.equal(refused.body.errors.length, 1);
        assert.equal(refused.body.errors[0].field, kind.field);
        assert.match(refused.body.errors[0].reason, kind.reason);
        assert.match(refused.body.errors[0].reason, /at most 3 /);
        assert.equal(await countAt(app, path), 3);
      });

      test(`${kind.name}: 20 creates at once around the limit never take it past`, async (t) => {
        const app = await buildTestApp(t, { dialect, config: { [kind.setting]: 5 } });
        const path = await kind.path(app);
        const first = await app.request('POST', path, { body: kind.body(100) });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => app.request('POST', path, { body: kind.body(i) })),
        );
        const statuses = answers.map((a) => a.status).sort();
        assert.deepEqual(statuses, [...Array(4).fill(200), ...Array(16).fill(400)], JSON.stringify(answers.map((a) => a.body)));
        assert.equal(await countAt(app, path), 5);
      });
    }

    test('tags made on the way (a firewall created with tags) count too; tags the account has cost nothing', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { limitTags: 2 } });
      assert.equal((await app.request('POST', '/v4/tags', { body: { label: 'kept' } })).status, 200);
      const rules = { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' };
      const two = await app.request('POST', '/v4/networking/firewalls', {
        body: { label: 'fw-a', rules, tags: ['kept', 'new-one'] },
      });
      assert.equal(two.status, 200, JSON.stringify(two.body));
      const over = await app.request('POST', '/v4/networking/firewalls', { body: { label: 'fw-b', rules, tags: ['third'] } });
      assert.deepEqual([over.status, over.body.errors[0].field], [400, 'tags']);
      assert.equal(await countAt(app, '/v4/networking/firewalls'), 1, 'the refused firewall was not made');
      const again = await app.request('POST', '/v4/networking/firewalls', {
        body: { label: 'fw-c', rules, tags: ['kept', 'new-one'] },
      });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(
        (await app.request('POST', '/v4/tags', { body: { label: 'kept' } })).status,
        200,
        'an existing tag is not a new one',
      );
      assert.equal(await countAt(app, '/v4/tags'), 2);
    });

    test('a zone imported with more records than a domain may have is refused, and no domain is made', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { limitRecordsPerDomain: 2 } });
      const me = await admin(app);
      const principal: Principal = {
        accountId: me.accountId,
        userId: me.userId,
        username: me.username,
        restricted: false,
        scopes: '*',
        tokenId: 0,
      };
      const origin = freshDomain('import');
      const soa = { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial: 1, refresh: 7200, retry: 300, expire: 604800 };
      const zone = (hosts: number): Zone => ({
        origin,
        axfrIps: [],
        records: [
          { name: origin, type: 'SOA', ttl: 3600, data: { ...soa, minimum: 300 } },
          ...Array.from({ length: hosts }, (_, i) => ({
            name: `h${i}.${origin}`,
            type: 'A' as const,
            ttl: 300,
            data: '192.0.2.1',
          })),
        ],
      });
      await assert.rejects(importDomain(app.runtime.ctx, principal, zone(3), 'remote_nameserver'), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 400);
        assert.match(err.errors[0]?.reason ?? '', /at most 2 records/);
        return true;
      });
      assert.equal(await countAt(app, '/v4/domains'), 0);
      await importDomain(app.runtime.ctx, principal, zone(2), 'remote_nameserver');
      assert.equal(await countAt(app, '/v4/domains'), 1, 'two records are within the limit');
    });
  });
}
