import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withHostsEntry } from '../../src/compute/qemu/deploy-settings.ts';
import { ifupdownInterfaces } from '../../src/compute/qemu/guest-network.ts';

const PUBLIC = { interface: 'eth0', ipv4: ['192.0.2.10/24', '192.0.2.11/24'], gateway4: '192.0.2.1', ipv6: '2001:db8::10/64' };
const PRIVATE = { interface: 'eth1', ipv4: ['192.168.128.5/17'] };

test('ifupdown gets a static stanza per address, the gateway on the first', () => {
  assert.equal(
    ifupdownInterfaces([PUBLIC, PRIVATE, { interface: 'eth2', ipv4: [] }]),
    [
      '# Written by Cumulo when the image was deployed (its network helper).',
      '',
      'auto eth0',
      'iface eth0 inet static',
      '    address 192.0.2.10/24',
      '    gateway 192.0.2.1',
      'iface eth0 inet static',
      '    address 192.0.2.11/24',
      'iface eth0 inet6 static',
      '    address 2001:db8::10/64',
      '    gateway fe80::1',
      '',
      'auto eth1',
      'iface eth1 inet static',
      '    address 192.168.128.5/17',
      '',
      'auto eth2',
      'iface eth2 inet manual',
      '',
    ].join('\n'),
  );
});

test('settings that are not addresses or interface names are refused before anything is written', () => {
  assert.throws(() => ifupdownInterfaces([{ interface: "eth0'; reboot; '", ipv4: [] }]), /not an interface name/);
  assert.throws(() => ifupdownInterfaces([{ interface: 'eth0', ipv4: ["1.2.3.4/24'"] }]), /not an IPv4 address/);
  assert.throws(() => ifupdownInterfaces([{ interface: 'eth0', ipv4: ['192.0.2.1/24\n  up reboot'] }]), /not an IPv4 address/);
  assert.throws(() => ifupdownInterfaces([{ interface: 'eth0', ipv4: [], ipv6: '192.0.2.1/24' }]), /ipv6 is not/);
});

test('/etc/hosts gets the hostname on 127.0.1.1, replacing an earlier one and keeping the rest', () => {
  assert.equal(withHostsEntry('', 'node-one'), '127.0.0.1\tlocalhost\n127.0.1.1\tnode-one\n');
  assert.equal(
    withHostsEntry('127.0.0.1 localhost\n127.0.1.1 debian\n::1 localhost ip6-localhost\n', 'node-one'),
    '127.0.0.1 localhost\n::1 localhost ip6-localhost\n127.0.1.1\tnode-one\n',
  );
});
