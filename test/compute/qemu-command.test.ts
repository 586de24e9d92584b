import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MachineSpec } from '../../src/compute/driver.ts';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { guestDevice, qemuCommand } from '../../src/compute/qemu/qemu-command.ts';
import { slirpNetwork, UserNetwork } from '../../src/compute/qemu/user-network.ts';

const SPEC: MachineSpec = {
  key: 'node-7',
  region: 'us-east',
  memoryMb: 512,
  vcpus: 2,
  devices: ['disk-1', null, 'disk-3'],
  rootDevice: 2,
  boot: 'image',
  interfaces: [
    {
      mac: 'f2:3c:91:00:00:07',
      purpose: 'public',
      addresses: { interface: 'eth0', ipv4: ['198.51.100.7/24'], gateway4: '198.51.100.1' },
    },
    { mac: 'f2:3c:91:00:00:08', purpose: 'vlan', vlan: 'backend', addresses: null },
  ],
};

test('a disk after an empty device is named by its place among the disks attached', () => {
  assert.equal(guestDevice(SPEC.devices, 0), '/dev/vda');
  assert.equal(guestDevice(SPEC.devices, 2), '/dev/vdb');
  assert.throws(() => guestDevice(SPEC.devices, 1), /no disk at device 1/);
});

test('the QEMU command: daemonized and paused, QMP and serial sockets, a virtio RNG, virtio disks in order, the root disk kernel and the network', () => {
  const files = machineFiles('/data,dir/compute', 'node-7');
  const network = { qemuArgs: ['-netdev', 'user,id=net0'], launchPrefix: ['ip', 'netns', 'exec', 'cumulo'], ports: [] };
  const command = qemuCommand({
    spec: SPEC,
    accel: 'tcg',
    files,
    disks: ['/d/1.img', '/d/3.img'],
    kernelBoot: { kernel: '/d/vmlinuz', initrd: '/d/initrd.img', root: '/dev/vdb' },
    network,
  });
  const text = command.join(' ');
  assert.deepEqual(command.slice(0, 5), ['ip', 'netns', 'exec', 'cumulo', 'qemu-system-x86_64']);
  assert.match(text, / -accel tcg -smp 2 -m 512 /);
  assert.match(text, / -device virtio-rng-pci /, 'the guest has entropy from the host');
  assert.match(text, / -S -daemonize -pidfile \/data,dir\/compute\/machines\/node-7\/qemu\.pid /);
  assert.match(text, / -qmp unix:\/data,,dir\/compute\/machines\/node-7\/qmp\.sock,server=on,wait=off /);
  assert.match(
    text,
    /path=\/data,,dir\/compute\/machines\/node-7\/serial\.sock,server=on,wait=off,logfile=.*console\.log,logappend=on -serial chardev:serial0/,
  );
  assert.match(
    text,
    /file=\/d\/1\.img,if=none,id=disk0,.* -device virtio-blk-pci,drive=disk0 -drive file=\/d\/3\.img,if=none,id=disk1/,
  );
  assert.match(text, / -kernel \/d\/vmlinuz -append root=\/dev\/vdb rw console=ttyS0 net\.ifnames=0 -initrd \/d\/initrd\.img /);
  assert.ok(text.endsWith(' -netdev user,id=net0'));
  assert.doesNotMatch(text, /bootindex/);

  const fromDisk = qemuCommand({
    spec: { ...SPEC, boot: 'disk' },
    accel: 'kvm',
    files,
    disks: ['/d/1.img'],
    kernelBoot: null,
    network,
  });
  assert.match(fromDisk.join(' '), /-accel kvm -cpu host .*virtio-blk-pci,drive=disk0,bootindex=0/);
  assert.ok(!fromDisk.includes('-kernel'));
});

test('user networking puts the guest address and its gateway on one QEMU user network, forwards 22 and the listed ports, leaves VLANs unconnected', async () => {
  assert.deepEqual(slirpNetwork(SPEC.interfaces[0] ?? assert.fail()), {
    options: 'net=198.51.100.0/24,host=198.51.100.1,dns=198.51.100.2,dhcpstart=198.51.100.3',
    guest: '198.51.100.7',
  });
  assert.deepEqual(slirpNetwork({ mac: 'f2:3c:91:00:00:09', purpose: 'public', addresses: null }), {
    options: 'net=10.0.2.0/24',
    guest: '10.0.2.15',
  });
  const backend = new UserNetwork({ ports: [8080, 22] });
  const attached = await backend.attach(SPEC);
  assert.deepEqual(
    attached.ports.map((p) => [p.guest, p.address]),
    [
      [22, '127.0.0.1'],
      [8080, '127.0.0.1'],
    ],
  );
  const [ssh, web] = attached.ports;
  assert.notEqual(ssh?.host, web?.host);
  assert.deepEqual(attached.launchPrefix, []);
  assert.deepEqual(attached.qemuArgs, [
    '-netdev',
    `user,id=net0,restrict=on,ipv6=off,net=198.51.100.0/24,host=198.51.100.1,dns=198.51.100.2,dhcpstart=198.51.100.3,hostfwd=tcp:127.0.0.1:${ssh?.host}-198.51.100.7:22,hostfwd=tcp:127.0.0.1:${web?.host}-198.51.100.7:8080`,
    '-device',
    'virtio-net-pci,netdev=net0,mac=f2:3c:91:00:00:07',
    '-device',
    'virtio-net-pci,mac=f2:3c:91:00:00:08',
  ]);
  await assert.rejects(
    backend.attach({ ...SPEC, interfaces: [{ mac: 'nope', purpose: 'public', addresses: null }] }),
    /not a MAC/,
  );
  await backend.detach(SPEC.key);
  await backend.applyFirewall(SPEC.key, 'table inet x {}');
});
