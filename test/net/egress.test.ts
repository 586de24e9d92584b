import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { EgressPolicy } from '../../src/net/egress.ts';
import { EgressRefusedError, egressGate, pinnedLookup } from '../../src/net/egress-gate.ts';
import { normaliseIp, parseRange } from '../../src/net/ip-address.ts';

test('every spelling of an address comes out as one text; names and garbage as null', () => {
  const cases: [string, string | null][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0X7F.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0.0.0.0', '0.0.0.0'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
    ['::ffff:169.254.169.254', '169.254.169.254'],
    ['::7f00:1', '127.0.0.1'],
    ['::ffff:0:7f00:1', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['::1', '::1'],
    ['::', '::'],
    ['[FD00:EC2::254]', 'fd00:ec2::254'],
    ['fe80::1%eth0', 'fe80::1'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['example.org', null],
    ['localhost', null],
    ['1.2.3.09', null],
    ['256.1.1.1', null],
    ['evil.example@127.0.0.1', null],
    ['', null],
  ];
  for (const [text, expected] of cases) assert.equal(normaliseIp(text), expected, text);
});

test('CIDR ranges: ip/prefix or a bare address, nothing else', () => {
  assert.deepEqual(parseRange('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  assert.deepEqual(parseRange('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  assert.deepEqual(parseRange(' fd00::/8 '), { address: 'fd00::', prefix: 8, family: 'ipv6' });
  for (const bad of ['10.0.0.0/33', '::/129', 'example.org/8', '10/8', '10.0.0.0/', '10.0.0.0/8/8', '']) {
    assert.equal(parseRange(bad), null, bad);
  }
});

const refuse = (policy: EgressPolicy, address: string, port = 80, isOwn?: (ip: string) => Promise<boolean>) =>
  policy.refusal(address, port, isOwn);

test('the default policy: public and documentation addresses allowed, the rest refused by kind', async () => {
  const policy = new EgressPolicy({});
  for (const allowed of [
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700::1111',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '2001:db8::53',
  ]) {
    assert.equal(await refuse(policy, allowed), null, allowed);
  }
  const refused: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['017700000001', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
    ['10.1.2.3', 'private'],
    ['172.16.0.9', 'private'],
    ['192.168.130.4', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['example.org', 'not-an-address'],
  ];
  for (const [address, kind] of refused) assert.equal(await refuse(policy, address), kind, address);
});

test('ALLOW overrides the default refusals, DENY overrides everything, the own listeners are never reached', async () => {
  const policy = new EgressPolicy({ allow: ['127.0.0.0/8', '10.0.0.0/8', '::1'], deny: ['10.9.0.0/16', '93.184.216.0/24'] });
  assert.equal(await refuse(policy, '127.0.0.1'), null);
  assert.equal(await refuse(policy, '::ffff:127.0.0.1'), null, 'a mapped address is checked as its IPv4 one');
  assert.equal(await refuse(policy, '10.1.2.3'), null);
  assert.equal(await refuse(policy, '::1'), null);
  assert.equal(await refuse(policy, '10.9.0.1'), 'denied', 'DENY wins over ALLOW');
  assert.equal(await refuse(policy, '93.184.216.34'), 'denied', 'DENY refuses a public address');
  assert.equal(await refuse(policy, '169.254.169.254'), 'metadata', 'what ALLOW does not name stays refused');

  policy.addOwnListener('127.0.0.1', 8080);
  policy.addOwnListener('::', 5353);
  assert.equal(await refuse(policy, '127.0.0.1', 8080), 'own-listener', 'even under ALLOW');
  assert.equal(await refuse(policy, '2130706433', 8080), 'own-listener');
  assert.equal(await refuse(policy, '0.0.0.0', 8080), 'own-listener', 'the unspecified address reaches every listener');
  assert.equal(await refuse(policy, '127.0.0.1', 8081), null, 'another port is not the listener');
  assert.equal(await refuse(policy, '127.0.0.2', 5353), 'own-listener', 'a listener on :: has every local address');
  assert.equal(await refuse(policy, '::1', 5353), 'own-listener');
});

test("the caller's own addresses (the account's nodes) are allowed when private, and only then", async () => {
  const policy = new EgressPolicy({ deny: ['192.168.200.0/24'] });
  const asked: string[] = [];
  const own = async (ip: string) => {
    asked.push(ip);
    return ['192.168.128.7', '100.64.0.2', '127.0.0.1', '169.254.169.254', '192.168.200.1'].includes(ip);
  };
  assert.equal(await refuse(policy, '192.168.128.7', 80, own), null);
  assert.equal(await refuse(policy, '100.64.0.2', 80, own), null);
  assert.equal(await refuse(policy, '192.168.128.8', 80, own), 'private');
  assert.equal(await refuse(policy, '127.0.0.1', 80, own), 'loopback', 'own never covers loopback');
  assert.equal(await refuse(policy, '169.254.169.254', 80, own), 'metadata', 'nor a metadata address');
  assert.equal(await refuse(policy, '192.168.200.1', 80, own), 'denied', 'nor what DENY names');
  assert.deepEqual(asked, ['192.168.128.7', '100.64.0.2', '192.168.128.8'], 'asked only for private addresses');
});

test('the gate resolves a name now and refuses it when any address it has is refused', async () => {
  const closed = egressGate(new EgressPolicy({}));
  await assert.rejects(
    closed('localhost', 80),
    (err: unknown) => err instanceof EgressRefusedError && err.refusal === 'loopback',
  );
  await assert.rejects(closed('0x7f.1', 80), (err: unknown) => err instanceof EgressRefusedError && err.address === '127.0.0.1');
  const open = egressGate(new EgressPolicy({ allow: ['127.0.0.0/8', '::1/128'] }));
  const destination = await open('localhost', 80);
  assert.ok(['127.0.0.1', '::1'].includes(destination.address), destination.address);
  assert.deepEqual(await open('[::ffff:7f00:1]', 80), { address: '127.0.0.1', family: 4 });
  const aborted = AbortSignal.abort(new Error('gave up'));
  await assert.rejects(open('localhost', 80, aborted), /gave up/);
});

test('a pinned lookup sends the request to the checked address while Host keeps the name', async (t) => {
  const server = http.createServer((req, res) => res.end(req.headers.host));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const body = await new Promise<string>((resolve, reject) => {
    const request = http.get(
      `http://name.invalid:${port}/`,
      { lookup: pinnedLookup({ address: '127.0.0.1', family: 4 }), agent: false },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve(text));
      },
    );
    request.on('error', reject);
  });
  assert.equal(body, `name.invalid:${port}`);
});

test('CUMULO_EGRESS_ALLOW and CUMULO_EGRESS_DENY are CIDR lists; a bad entry stops the start, naming the variable', () => {
  const config = loadConfig({ CUMULO_EGRESS_ALLOW: '127.0.0.0/8, ::1', CUMULO_EGRESS_DENY: '93.184.216.0/24' });
  assert.deepEqual([config.egressAllow, config.egressDeny], [['127.0.0.0/8', '::1'], ['93.184.216.0/24']]);
  const unset = loadConfig({});
  assert.deepEqual([unset.egressAllow, unset.egressDeny], [undefined, undefined]);
  assert.throws(
    () => loadConfig({ CUMULO_EGRESS_ALLOW: '127.0.0.0/8,localhost' }),
    (err: unknown) =>
      err instanceof ConfigError && /CUMULO_EGRESS_ALLOW must list CIDR ranges .* not localhost/.test(err.message),
  );
  assert.throws(
    () => loadConfig({ CUMULO_EGRESS_DENY: '10.0.0.0/33' }),
    (err: unknown) => err instanceof ConfigError && /CUMULO_EGRESS_DENY .* not 10\.0\.0\.0\/33/.test(err.message),
  );
});
