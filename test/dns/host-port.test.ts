import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { formatHostPort, parseHostPort } from '../../src/dns/host-port.ts';

test('host and port: names, IPv4, IPv6 in brackets or bare, with the default port when none is given', () => {
  const cases: [string, string, number][] = [
    ['ns1.example.com', 'ns1.example.com', 53],
    ['NS1.Example.com.:5353', 'NS1.Example.com', 5353],
    ['localhost:1053', 'localhost', 1053],
    ['192.0.2.1', '192.0.2.1', 53],
    ['192.0.2.1:5353', '192.0.2.1', 5353],
    ['[2001:db8::1]:5353', '2001:db8::1', 5353],
    ['[2001:db8::1]', '2001:db8::1', 53],
    ['2001:db8::1', '2001:db8::1', 53],
  ];
  for (const [text, host, port] of cases) assert.deepEqual(parseHostPort(text, 53), { host, port }, text);
  for (const text of [
    '',
    ':53',
    'ns1.example.com:',
    '[192.0.2.1]:53',
    '999.1.1.1',
    '192.0.2.1:70000',
    'a b.example',
    'a:b:c',
    'host:0',
  ]) {
    assert.equal(parseHostPort(text, 53), null, text);
  }
  assert.deepEqual(parseHostPort('127.0.0.1:0', 53, { allowPortZero: true }), { host: '127.0.0.1', port: 0 });
  assert.equal(formatHostPort({ host: '2001:db8::1', port: 53 }), '[2001:db8::1]:53');
  assert.equal(formatHostPort({ host: '192.0.2.1', port: 53 }), '192.0.2.1:53');
});

test('config: CUMULO_DNS_LISTEN is off by default, an address and port (0 too) when set', () => {
  assert.equal(loadConfig({}).dnsListen, undefined);
  assert.equal(loadConfig({ CUMULO_DNS_LISTEN: 'off' }).dnsListen, undefined);
  for (const listen of ['127.0.0.1:5353', '127.0.0.1:0', '[::1]:5353', '0.0.0.0:53']) {
    assert.equal(loadConfig({ CUMULO_DNS_LISTEN: listen }).dnsListen, listen);
  }
  for (const listen of ['localhost:5353', '127.0.0.1:99999', '[127.0.0.1]:53', 'on']) {
    assert.throws(
      () => loadConfig({ CUMULO_DNS_LISTEN: listen }),
      (e: unknown) => e instanceof ConfigError && /CUMULO_DNS_LISTEN/.test(e.message),
      listen,
    );
  }
});
