import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadCatalog } from '../../src/domain/catalog/catalog.ts';
import { allocateAddress, allocateAddresses, poolOf } from '../../src/domain/networking/ipam.ts';
import { formatAddress, parseAddress, parseAddressWithPrefix } from '../../src/net/cidr.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { catalogWith, createEmptyNode, nodeBody } from './helpers.ts';

const catalog = loadCatalog();
const usEast = catalog.region('us-east');

test('address text: RFC 5952 for IPv6, round trips', () => {
  const cases: [string, string][] = [
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1:0:0:0:0:0:0:0', '1::'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:2:0:0:3', '1::2:2:0:0:3'],
    ['1:0:2:0:3:0:4:0', '1:0:2:0:3:0:4:0'],
    ['FE80::ABCD', 'fe80::abcd'],
  ];
  for (const [input, canonical] of cases) {
    const parsed = parseAddress(input);
    assert.ok(parsed, input);
    assert.equal(formatAddress(parsed.version, parsed.value), canonical, input);
  }
  assert.equal(parseAddress('10.1.2.3')?.value, 0x0a010203n);
  assert.equal(parseAddress('10.1.2'), null);
  assert.equal(parseAddress('::ffff:1.2.3.4'), null);
});

test('an interface address keeps its host bits and knows its network', () => {
  const v4 = parseAddressWithPrefix('192.0.2.10/24');
  assert.equal(v4?.value, 0xc000020an);
  assert.deepEqual([v4?.prefix, v4 && formatAddress(4, v4.network.first), v4?.network.size], [24, '192.0.2.0', 256n]);
  const v6 = parseAddressWithPrefix('2001:db8::10/64');
  assert.deepEqual([v6?.version, v6 && formatAddress(6, v6.network.first)], [6, '2001:db8::']);
  for (const text of ['192.0.2.10', '192.0.2.10/33', 'x/24', '192.0.2.10/24/1'])
    assert.equal(parseAddressWithPrefix(text), null, text);
});

test('pools: public /24 subnets skip .0, .1 and .255; private /17; SLAAC host parts', () => {
  assert.ok(usEast);
  const pub = poolOf(usEast, 'public-ipv4');
  assert.equal(pub.capacity, 1024 * 253);
  assert.deepEqual(pub.at(0), { address: '100.64.0.2', prefix: 24, gateway: '100.64.0.1', subnet_mask: '255.255.255.0' });
  assert.equal(pub.at(252).address, '100.64.0.254');
  assert.equal(pub.at(253).address, '100.64.1.2');
  assert.equal(pub.at(253).gateway, '100.64.1.1');
  assert.equal(pub.at(pub.capacity - 1).address, '100.67.255.254');
  const priv = poolOf(usEast, 'private-ipv4');
  assert.equal(priv.capacity, 32766);
  assert.deepEqual(priv.at(0), { address: '192.168.128.1', prefix: 17, gateway: null, subnet_mask: '255.255.128.0' });
  assert.equal(priv.at(priv.capacity - 1).address, '192.168.255.254');
  const slaac = poolOf(usEast, 'slaac');
  assert.equal(slaac.at(0x123456).address, '2001:db8:1:0:f03c:91ff:fe12:3456');
  assert.equal(slaac.at(1).prefix, 64);
  const all = new Set(Array.from({ length: 2000 }, (_, i) => pub.at(i).address));
  assert.equal(all.size, 2000);
  assert.ok([...all].every((a) => !/\.(0|1|255)$/.test(a)));
});

for (const dialect of DIALECTS) {
  describe(`IPAM [${dialect}]`, () => {
    test('a full pool refuses with 400; a released address is found again by the gap search', async (t) => {
      const catalogPath = catalogWith(t, (data) => {
        const region = data.regions.find((r) => r.id === 'us-west');
        if (region) region.ipv4_pool = '198.51.100.0/29';
      });
      const app = await buildTestApp(t, { dialect, config: { catalogPath } });
      const nodes = [];
      for (let i = 0; i < 5; i += 1) nodes.push(await createEmptyNode(app, { region: 'us-west' }));
      assert.deepEqual(
        nodes.map((n) => n.ipv4[0]),
        ['198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5', '198.51.100.6'],
      );
      const full = await app.request('POST', '/v4/node/instances', { body: nodeBody({ region: 'us-west', image: undefined }) });
      assert.equal(full.status, 400);
      assert.equal(full.body.errors[0].field, 'region');
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, 5, 'the refused node left nothing behind');

      await app.request('DELETE', `/v4/node/instances/${nodes[1]?.id}`);
      await app.request('DELETE', `/v4/node/instances/${nodes[3]?.id}`);
      const again = await createEmptyNode(app, { region: 'us-west' });
      assert.equal(again.ipv4[0], '198.51.100.3');
      assert.equal((await createEmptyNode(app, { region: 'us-west' })).ipv4[0], '198.51.100.5');
    });

    test('concurrent node creations get distinct addresses', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          app.request('POST', '/v4/node/instances', { body: nodeBody({ image: undefined, private_ip: i % 2 === 0 }) }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        Array(40).fill(200),
      );
      const v4 = results.flatMap((r) => r.body.ipv4 as string[]);
      const v6 = results.map((r) => r.body.ipv6 as string);
      assert.equal(v4.length, 60);
      assert.equal(new Set(v4).size, 60);
      assert.equal(new Set(v6).size, 40);
    });

    test('allocations racing in open transactions never hand out an address twice', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const me = await admin(app);
      const region = ctx.catalog.region('us-east');
      assert.ok(region);
      const nodes = await Promise.all(Array.from({ length: 8 }, () => createEmptyNode(app)));
      // Each transaction allocates, then holds its locks a moment, so the others run into its rows.
      const hold = dialect === 'postgres' ? sql`select pg_sleep(0.05)` : sql`select 1`;
      const allocated = await Promise.all(
        nodes.flatMap((node) =>
          [0, 1].map(() =>
            ctx.db.transaction().execute(async (trx) => {
              const row = await allocateAddress(trx, ctx, {
                accountId: me.accountId,
                nodeId: node.id,
                region,
                pool: 'public-ipv4',
              });
              await hold.execute(trx);
              return row.address;
            }),
          ),
        ),
      );
      assert.equal(new Set(allocated).size, allocated.length);
      const rows = await ctx.db
        .selectFrom('ip_addresses')
        .select(['address', 'ordinal'])
        .where('region', '=', 'us-east')
        .where('type', '=', 'ipv4')
        .where('public', '=', 1)
        .orderBy('ordinal')
        .execute();
      assert.equal(rows.length, 8 + 16);
      assert.deepEqual(
        rows.map((r) => Number(r.ordinal)),
        Array.from({ length: 24 }, (_, i) => i),
        'the pool is filled densely from the start',
      );
    });

    test('several pools at once: each row in the order of its pool, none handed out twice, each pool dense', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const me = await admin(app);
      const region = ctx.catalog.region('us-east');
      assert.ok(region);
      const nodes = await Promise.all(Array.from({ length: 6 }, () => createEmptyNode(app)));
      const hold = dialect === 'postgres' ? sql`select pg_sleep(0.05)` : sql`select 1`;
      const pools = ['slaac', 'private-ipv4', 'public-ipv4'] as const;
      const allocated = await Promise.all(
        nodes.flatMap((node) =>
          [0, 1].map(() =>
            ctx.db.transaction().execute(async (trx) => {
              const rows = await allocateAddresses(trx, ctx, { accountId: me.accountId, nodeId: node.id, region }, pools);
              await hold.execute(trx);
              return rows;
            }),
          ),
        ),
      );
      for (const rows of allocated) {
        assert.deepEqual(
          rows.map((r) => [r.type, r.public]),
          [
            ['ipv6', 1],
            ['ipv4', 0],
            ['ipv4', 1],
          ],
        );
      }
      const addresses = allocated.flat().map((r) => r.address);
      assert.equal(new Set(addresses).size, 36);
      for (const [type, isPublic, before] of [
        ['ipv6', 1, 6],
        ['ipv4', 0, 0],
        ['ipv4', 1, 6],
      ] as const) {
        const ordinals = await ctx.db
          .selectFrom('ip_addresses')
          .select('ordinal')
          .where('region', '=', 'us-east')
          .where('type', '=', type)
          .where('public', '=', isPublic)
          .orderBy('ordinal')
          .execute();
        assert.deepEqual(
          ordinals.map((r) => Number(r.ordinal)),
          Array.from({ length: before + 12 }, (_, i) => i),
          `${type} ${isPublic}: filled densely from the start`,
        );
      }
    });

    if (dialect === 'postgres') {
      test('an allocation does not wait for another of the same pool still open; one rolled back leaves a gap', async (t) => {
        const app = await buildTestApp(t, { dialect });
        const { ctx } = app.runtime;
        const me = await admin(app);
        const region = ctx.catalog.region('us-east');
        assert.ok(region);
        const [a, b, c] = await Promise.all([createEmptyNode(app), createEmptyNode(app), createEmptyNode(app)]);
        assert.ok(a && b && c);
        const allocate = (db: typeof ctx.db, nodeId: number) =>
          allocateAddress(db, ctx, { accountId: me.accountId, nodeId, region, pool: 'public-ipv4' });
        const inner: string[] = [];
        await assert.rejects(
          ctx.db.transaction().execute(async (open) => {
            const held = await allocate(open, a.id);
            // While `open` holds its address, another transaction takes the next one without waiting.
            const other = ctx.db.transaction().execute(async (trx) => (await allocate(trx, b.id)).address);
            const waited = new Promise<string>((_, reject) => setTimeout(() => reject(new Error('it waited')), 5000));
            inner.push(held.address, await Promise.race([other, waited]));
            throw new Error('roll back');
          }),
          /roll back/,
        );
        assert.equal(inner.length, 2);
        assert.notEqual(inner[0], inner[1]);
        const after = await ctx.db.transaction().execute(async (trx) => (await allocate(trx, c.id)).address);
        assert.ok(![...inner, ...a.ipv4, ...b.ipv4, ...c.ipv4].includes(after), 'the rolled back address stays a gap');
      });
    }
  });
}
