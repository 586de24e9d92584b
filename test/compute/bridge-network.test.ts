import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { MachineSpec, NetworkSettings } from '../../src/compute/driver.ts';
import { interfaceAddresses } from '../../src/compute/qemu/bridge-addresses.ts';
import { hostVethName, machineTable, regionBridgeName, tapName, vlanBridgeName } from '../../src/compute/qemu/bridge-names.ts';
import { BridgeNetwork } from '../../src/compute/qemu/bridge-network.ts';
import { QemuDriver } from '../../src/compute/qemu/driver.ts';
import { chooseAccelerator } from '../../src/compute/qemu/kvm.ts';
import { firewallText } from '../../src/compute/qemu/machine-nftables.ts';
import { parseNodeRuleset } from '../../src/compute/qemu/node-ruleset.ts';
import { buildTestImage } from '../../src/compute/qemu/test-image.ts';
import type { Rule } from '../../src/domain/firewalls/firewall.schema.ts';
import { type EffectiveFirewall, renderNftables } from '../../src/domain/firewalls/firewall-nftables.ts';
import { tempDir } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';
import { networkSpec } from '../helpers/machine-specs.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const NODE = { id: 7, label: 'bridge-node' };

function firewall(rules: Partial<EffectiveFirewall['rules']>): EffectiveFirewall {
  return {
    id: 3,
    label: 'edge',
    rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [], outbound: [], ...rules },
  };
}

const SSH_FROM_ANYWHERE: Rule = {
  protocol: 'TCP',
  ports: '22',
  action: 'ACCEPT',
  label: 'ssh',
  addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
};

test('a rendered node ruleset becomes the machine chains: rules as rendered, the policy last; anything else is refused', () => {
  const rendered = renderNftables(NODE, firewall({ inbound: [SSH_FROM_ANYWHERE], outbound_policy: 'DROP' }));
  const ruleset = parseNodeRuleset(rendered);
  assert.equal(ruleset.inbound.policy, 'drop');
  assert.equal(ruleset.outbound.policy, 'drop');
  assert.deepEqual(ruleset.inbound.rules.slice(0, 2), ['ct state established,related accept', 'ct state invalid drop']);
  assert.deepEqual(ruleset.inbound.rules.slice(-2), [
    'meta nfproto ipv4 tcp dport 22 accept comment "firewall 3 inbound[0] ssh"',
    'meta nfproto ipv6 tcp dport 22 accept comment "firewall 3 inbound[0] ssh"',
  ]);
  const text = firewallText('cumulo_x', ruleset);
  assert.match(text, /^flush chain inet cumulo_x inbound\nflush chain inet cumulo_x outbound\n/);
  assert.match(text, /tcp dport 22 accept comment "firewall 3 inbound\[0\] ssh"\n\t\tdrop\n\t\}/);

  const open = parseNodeRuleset(renderNftables(NODE, null));
  assert.deepEqual(open, { inbound: { rules: [], policy: 'accept' }, outbound: { rules: [], policy: 'accept' } });
  assert.equal(firewallText('cumulo_x', null), 'flush chain inet cumulo_x inbound\nflush chain inet cumulo_x outbound\n');

  assert.throws(() => parseNodeRuleset('table ip other {\n}\n'), /not part of a node ruleset/);
  assert.throws(() => parseNodeRuleset(rendered.replace('chain output {', 'chain prerouting {')), /not part of a node ruleset/);
  assert.throws(() => parseNodeRuleset(rendered.replace(/\n\}\n$/, '\n')), /expected one table inet/);
  assert.throws(() => parseNodeRuleset(rendered.replace('hook input', 'hook forward')), /input chain's hook line/);
});

test('an interface gives its gateways to the bridge, its addresses in the gateway subnet to the host routes, and all it holds to its filter', () => {
  const addresses = interfaceAddresses({
    mac: 'f2:3c:91:12:34:56',
    purpose: 'public',
    addresses: {
      interface: 'eth0',
      ipv4: ['100.64.3.10/24', '192.168.130.4/17', '100.64.3.11/24'],
      gateway4: '100.64.3.1',
      ipv6: '2001:DB8:0:0:f03c:91ff:fe12:3456/64',
      gateway6: 'fe80::1',
    },
  });
  assert.deepEqual(addresses, {
    gateways: ['100.64.3.1/24', 'fe80::1/64'],
    routed: { ipv4: ['100.64.3.10', '100.64.3.11'], ipv6: ['2001:db8::f03c:91ff:fe12:3456'] },
    own: {
      ipv4: ['100.64.3.10', '192.168.130.4', '100.64.3.11'],
      ipv6: ['2001:db8::f03c:91ff:fe12:3456', 'fe80::f03c:91ff:fe12:3456'],
    },
  });
  assert.throws(
    () =>
      interfaceAddresses({
        mac: 'f2:3c:91:12:34:56',
        purpose: 'public',
        addresses: { interface: 'eth0', ipv4: ['100.64.3.10/24'], gateway4: '100.64.4.1' },
      }),
    /gateway 100\.64\.4\.1 is in the subnet of none of its addresses/,
  );
  for (const name of [
    tapName('node-123456789', 2),
    regionBridgeName('ap-southeast'),
    vlanBridgeName('ap-southeast', 'x'.repeat(64)),
    hostVethName('cumulo'),
  ])
    assert.ok(name.length <= 15, name);
});

const ipJson = async <T>(args: string[]): Promise<T> => JSON.parse((await exec(systemTool('ip'), ['-j', ...args])).stdout) as T;

test(
  'bridge networking through the qemu driver: a kept firewall is loaded before the guest runs, the host reaches the guest at its own addresses, its firewall really filters them, statefully, a bad ruleset leaves the last one, and destroy cleans up',
  needs('qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen', 'nft', 'ip'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const netns = `cumulo-t-${randomInt(1 << 24).toString(16)}`;
    const network = new BridgeNetwork({ netns, log: capturedLog().logger });
    let driver: QemuDriver | null = null;
    // Before tempDir's own hook, which removes the pid file destroy reads.
    t.after(async () => {
      await driver?.destroy('node-1');
      await driver?.close();
      await network.removeNamespace();
    });
    const image = await buildTestImage(path.join(os.tmpdir(), 'cumulo-compute-cache'));
    const dir = tempDir(t);
    const key = path.join(dir, 'id_ed25519');
    await exec(systemTool('ssh-keygen'), ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    driver = new QemuDriver({
      dir: path.join(dir, 'compute'),
      network,
      memoryMb: 1024,
      log: capturedLog().logger,
      accelerator: await chooseAccelerator(),
    });
    await driver.open(() => {});

    const subnet = randomInt(256);
    const ipv4 = `100.64.${subnet}.10`;
    const ipv6 = `2001:db8:${subnet.toString(16)}::f03c:91ff:fe12:3456`;
    const eth0: NetworkSettings = {
      interface: 'eth0',
      ipv4: [`${ipv4}/24`],
      gateway4: `100.64.${subnet}.1`,
      ipv6: `${ipv6}/64`,
      gateway6: 'fe80::1',
    };
    const spec: MachineSpec = {
      key: 'node-1',
      region: 'us-test',
      memoryMb: 256,
      vcpus: 1,
      devices: ['disk-1'],
      rootDevice: 0,
      boot: 'image',
      interfaces: [
        { mac: 'f2:3c:91:12:34:56', purpose: 'public', addresses: eth0 },
        { mac: 'f2:3c:91:12:34:57', purpose: 'vlan', vlan: 'lab', addresses: null },
      ],
    };
    await driver.deployImage(
      { key: 'disk-1', sizeMb: 96, filesystem: 'ext4' },
      { disk: image.disk, format: 'raw', kernel: image.kernel, initrd: image.initrd },
      {
        hostname: 'bridge-node',
        rootPasswordHash: null,
        authorizedKeys: [fs.readFileSync(`${key}.pub`, 'utf8')],
        network: [eth0],
      },
    );

    // What the driver's start attaches, seen before it: attached again, the same.
    const attached = await network.attach(spec);
    assert.deepEqual(await network.attach(spec), attached, 'attach again: the same machine network');
    assert.deepEqual(attached.launchPrefix, ['ip', 'netns', 'exec', netns]);
    assert.deepEqual(attached.ports, []);
    const tap0 = tapName('node-1', 0);
    const tap1 = tapName('node-1', 1);
    assert.deepEqual(attached.qemuArgs, [
      ...['-netdev', `tap,id=net0,ifname=${tap0},script=no,downscript=no`],
      ...['-device', 'virtio-net-pci,netdev=net0,mac=f2:3c:91:12:34:56'],
      ...['-netdev', `tap,id=net1,ifname=${tap1},script=no,downscript=no`],
      ...['-device', 'virtio-net-pci,netdev=net1,mac=f2:3c:91:12:34:57'],
    ]);

    // In the namespace: the public tap on the region's bridge with the gateways, the VLAN's tap on a bridge with no address.
    type Link = { ifname: string; master?: string; addr_info?: { local: string; prefixlen: number }[] };
    const links = new Map((await ipJson<Link[]>(['-n', netns, 'address', 'show'])).map((l) => [l.ifname, l]));
    const region = regionBridgeName('us-test');
    const vlan = vlanBridgeName('us-test', 'lab');
    assert.equal(links.get(tap0)?.master, region);
    assert.equal(links.get(tap1)?.master, vlan);
    const addressesOf = (name: string) => (links.get(name)?.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`);
    assert.ok(addressesOf(region).includes(`100.64.${subnet}.1/24`), addressesOf(region).join(' '));
    assert.ok(addressesOf(region).includes('fe80::1/64'), addressesOf(region).join(' '));
    assert.deepEqual(addressesOf(vlan), []);
    for (const address of [ipv4, ipv6]) {
      const [route] = await ipJson<{ dev: string }[]>(['route', 'get', address]);
      assert.equal(route?.dev, hostVethName(netns), `the host routes ${address} into the namespace`);
    }

    // A neighbour on the region's bridge (a namespace standing in for a second guest): its traffic is bridged, not routed.
    const neighbour = `${netns}-n`;
    t.after(() => exec(systemTool('ip'), ['netns', 'delete', neighbour]).catch(() => undefined));
    await exec(systemTool('ip'), ['netns', 'add', neighbour]);
    const veth = ['link', 'add', 'nbr', 'master', region, 'up', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', neighbour];
    await exec(systemTool('ip'), ['-n', netns, ...veth]);
    await exec(systemTool('ip'), ['-n', neighbour, 'address', 'add', `100.64.${subnet}.20/24`, 'dev', 'eth0']);
    await exec(systemTool('ip'), ['-n', neighbour, 'link', 'set', 'eth0', 'up']);

    /** The command's output over SSH from the host (or namespace `from`), or null when no connection is made within `timeoutS`. */
    const ssh = async (address: string, command: string, timeoutS = 30, from?: string): Promise<string | null> => {
      const options = ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${timeoutS}`, '-o', 'StrictHostKeyChecking=no'];
      options.push('-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR');
      const command_ = [systemTool('ssh'), '-i', key, ...options, `root@${address}`, command];
      const [program = '', ...args] = from === undefined ? command_ : [systemTool('ip'), 'netns', 'exec', from, ...command_];
      try {
        return (await exec(program, args)).stdout;
      } catch (error) {
        if ((error as { code?: number }).code === 255) return null;
        throw error;
      }
    };

    // A firewall given before the machine starts (inbound policy DROP, nothing for port 22): loaded before the guest runs.
    await driver.applyFirewall('node-1', renderNftables(NODE, firewall({})));
    await driver.start(spec, { timeoutMs: 120_000 });
    assert.equal(await ssh(ipv4, 'hostname', 3), null, 'port 22 is filtered over IPv4 from the first boot');
    assert.equal(await ssh(ipv4, 'hostname', 3, neighbour), null, 'port 22 is filtered on the bridge');

    // TCP 22 accepted, outbound policy DROP: SSH works (its replies are established traffic), the guest starts nothing.
    const sshOnly = renderNftables(NODE, firewall({ inbound: [SSH_FROM_ANYWHERE], outbound_policy: 'DROP' }));
    await driver.applyFirewall('node-1', sshOnly);
    assert.equal(await ssh(ipv4, 'hostname'), 'bridge-node\n');
    assert.equal(await ssh(ipv4, 'hostname', 30, neighbour), 'bridge-node\n');
    // The guest configures its IPv6 address from its stanza; duplicate address detection may still hold it.
    let overIpv6: string | null = null;
    for (let i = 0; i < 10 && overIpv6 === null; i += 1) overIpv6 = await ssh(ipv6, 'hostname', 3);
    assert.equal(overIpv6, 'bridge-node\n', 'the host reaches the guest over IPv6');
    const pingGateway = `ping -c 1 -W 3 100.64.${subnet}.1 >/dev/null && echo reached || echo unreachable`;
    assert.equal(await ssh(ipv4, pingGateway), 'unreachable\n', 'outbound policy DROP stops what the guest starts');

    // A ruleset nft refuses leaves the last one loaded, whole, and kept.
    const listFirewall = async () =>
      (await exec(systemTool('ip'), ['netns', 'exec', netns, systemTool('nft'), 'list', 'table', 'inet', machineTable('node-1')]))
        .stdout;
    const loaded = await listFirewall();
    assert.match(loaded, /tcp dport 22 accept comment "firewall 3 inbound\[0\] ssh"/);
    await assert.rejects(driver.applyFirewall('node-1', sshOnly.replaceAll('dport 22 ', 'dport 70000 ')), /firewall of node-1/);
    assert.equal(await listFirewall(), loaded);
    await assert.rejects(driver.applyFirewall('node-1', 'flush ruleset\n'), /not part of a node ruleset/);
    assert.equal(await ssh(ipv4, 'hostname'), 'bridge-node\n');

    await driver.applyFirewall('node-1', renderNftables(NODE, firewall({})));
    assert.equal(await ssh(ipv6, 'hostname', 3), null, 'port 22 is filtered over IPv6');

    // No firewall: everything passes again.
    await driver.applyFirewall('node-1', null);
    assert.equal(await ssh(ipv4, pingGateway), 'reached\n');
    assert.doesNotMatch(await listFirewall(), /comment "firewall/);
    // A guest sends only from its own addresses, firewall or not.
    assert.equal(
      await ssh(
        ipv4,
        `ip address add 100.64.${subnet}.99/24 dev eth0 && ping -c 1 -W 3 -I 100.64.${subnet}.99 100.64.${subnet}.1 >/dev/null && echo sent || echo dropped`,
      ),
      'dropped\n',
    );

    await driver.destroy('node-1');
    await network.detach('node-1');
    const left = new Set((await ipJson<Link[]>(['-n', netns, 'link', 'show'])).map((l) => l.ifname));
    assert.ok(!left.has(tap0) && !left.has(tap1), 'the taps are gone');
    assert.ok(left.has(region) && left.has(vlan), 'the bridges stay');
    for (const address of [ipv4, ipv6]) {
      const [route] = await ipJson<{ dev?: string }[]>(['route', 'get', address]);
      assert.notEqual(route?.dev, hostVethName(netns), `no host route to ${address} is left`);
    }
    await assert.rejects(network.applyFirewall('node-1', null), /node-1 has no network attached/);
    const tables = (await exec(systemTool('ip'), ['netns', 'exec', netns, systemTool('nft'), 'list', 'tables'])).stdout;
    assert.doesNotMatch(tables, new RegExp(machineTable('node-1')));

    await network.removeNamespace();
    // The kernel dismantles a namespace in the background.
    let vethLeft = true;
    for (let i = 0; i < 50 && vethLeft; i += 1) {
      vethLeft = (await ipJson<Link[]>(['link', 'show'])).some((l) => l.ifname === hostVethName(netns));
      if (vethLeft) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(!vethLeft, 'the veth went with the namespace');
  },
);

test(
  "two installations on one host: each in its own namespace, neither takes the other's namespace or host routes, nor removes them",
  needs('nft', 'ip'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const log = capturedLog().logger;
    const suffix = randomInt(1 << 24).toString(16);
    const first = new BridgeNetwork({ netns: `cumulo-t-${suffix}-a`, log, owner: '/srv/first' });
    const second = new BridgeNetwork({ netns: `cumulo-t-${suffix}-b`, log, owner: '/srv/second' });
    t.after(async () => {
      await first.removeNamespace();
      await second.removeNamespace();
    });
    // Off the first subnets, which the real-node clouds give their nodes.
    const subnet = 128 + randomInt(128);
    const spec = (key: string, host: number) =>
      networkSpec(key, 'us-test', [
        {
          mac: `f2:3c:91:00:01:${host.toString(16).padStart(2, '0')}`,
          purpose: 'public',
          addresses: { interface: 'eth0', ipv4: [`100.64.${subnet}.${host}/24`], gateway4: `100.64.${subnet}.1` },
        },
      ]);
    const routeOf = async (address: string) => (await ipJson<{ dev?: string }[]>(['route', 'get', address]))[0]?.dev;

    await first.attach(spec('node-1', 10));
    assert.equal(await routeOf(`100.64.${subnet}.10`), hostVethName(first.netns));
    // The same machine key and address in the second installation (its catalog gives the same pool).
    await assert.rejects(
      second.attach(spec('node-1', 10)),
      new RegExp(`already routes 100\\.64\\.${subnet}\\.10 through ${hostVethName(first.netns)}.*its own address ranges`),
    );
    assert.equal(await routeOf(`100.64.${subnet}.10`), hostVethName(first.netns), 'the first keeps its route');
    await second.attach(spec('node-1', 20));
    await second.detach('node-1');
    assert.equal(await routeOf(`100.64.${subnet}.10`), hostVethName(first.netns), "the second's detach leaves the first's route");
    const firstTaps = (await ipJson<{ ifname: string }[]>(['-n', first.netns, 'link', 'show'])).map((l) => l.ifname);
    assert.ok(firstTaps.includes(tapName('node-1', 0)), "and the first's tap of the same key");

    // A third installation told to use the first's namespace is refused before it changes anything there.
    const intruder = new BridgeNetwork({ netns: first.netns, log, owner: '/srv/third' });
    await assert.rejects(
      intruder.attach(spec('node-9', 30)),
      /namespace cumulo-t-\w+-a belongs to another installation \(cumulo \/srv\/first\)/,
    );
    assert.notEqual(await routeOf(`100.64.${subnet}.30`), hostVethName(first.netns));
    await first.detach('node-1');
  },
);
