import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { linkLocalOf } from '../../src/compute/qemu/bridge-addresses.ts';
import { bridgeMac, regionBridgeName, tapName } from '../../src/compute/qemu/bridge-names.ts';
import { BridgeNetwork } from '../../src/compute/qemu/bridge-network.ts';
import { capturedLog } from '../helpers/log.ts';
import { networkSpec } from '../helpers/machine-specs.ts';
import { type Frame, listenUdp, sendFrames } from '../helpers/raw-frames.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const ip = (...args: string[]) => exec(systemTool('ip'), args);

/*
 * What a guest could forge frame by frame, which no guest tool sends (busybox guests are in
 * real-nodes-tenants.test.ts): network namespaces stand in for two guests, each on a veth whose
 * bridge end is named as its machine's tap, so the machine's tables judge it as they judge a tap.
 */

interface FakeGuest {
  ns: string;
  key: string;
  mac: string;
  ipv4: string;
  ipv6: string;
  linkLocal: string;
}

const REGION = 'us-forged';

async function fakeGuest(
  t: TestContext,
  netns: string,
  network: BridgeNetwork,
  index: number,
  subnet: number,
): Promise<FakeGuest> {
  const key = `node-${index}`;
  const ns = `${netns}-g${index}`;
  const mac = `f2:3c:91:00:00:${index.toString(16).padStart(2, '0')}`;
  const ipv4 = `100.64.${subnet}.${10 + index}`;
  const linkLocal = linkLocalOf(mac);
  const ipv6 = linkLocal.replace(/^fe80::/, `2001:db8:${subnet.toString(16)}::`);
  t.after(() => ip('netns', 'delete', ns).catch(() => undefined));
  await ip('netns', 'add', ns);
  await ip('-n', netns, 'link', 'add', tapName(key, 0), 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
  const spec = networkSpec(key, REGION, [
    {
      mac,
      purpose: 'public',
      addresses: {
        interface: 'eth0',
        ipv4: [`${ipv4}/24`],
        gateway4: `100.64.${subnet}.1`,
        ipv6: `${ipv6}/64`,
        gateway6: 'fe80::1',
      },
    },
  ]);
  await network.attach(spec);
  await ip('-n', ns, 'link', 'set', 'eth0', 'address', mac);
  await exec(systemTool('ip'), ['netns', 'exec', ns, 'sysctl', '-q', '-w', 'net.ipv6.conf.eth0.accept_dad=0']);
  await ip('-n', ns, 'link', 'set', 'eth0', 'up');
  await ip('-n', ns, 'link', 'set', 'lo', 'up');
  await ip('-n', ns, 'address', 'add', `${ipv4}/24`, 'dev', 'eth0');
  await ip('-n', ns, 'address', 'add', `${ipv6}/64`, 'dev', 'eth0');
  await ip('-n', ns, 'route', 'add', 'default', 'via', `100.64.${subnet}.1`);
  return { ns, key, mac, ipv4, ipv6, linkLocal };
}

/** The link-layer address namespace `ns` holds for `address` on `dev`, after a datagram to it made it look. */
async function neighbour(ns: string, address: string, dev: string): Promise<string | undefined> {
  const list = JSON.parse((await ip('-n', ns, '-j', 'neigh', 'show', 'to', address, 'dev', dev)).stdout) as { lladdr?: string }[];
  return list[0]?.lladdr;
}

async function resolve(ns: string, address: string, dev: string): Promise<string | undefined> {
  const send = `import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b'x', ('${address}', 9, 0, socket.if_nametoindex('${dev}')))`;
  await exec(systemTool('ip'), ['netns', 'exec', ns, systemTool('python3'), '-c', send]);
  for (let i = 0; i < 20; i += 1) {
    const lladdr = await neighbour(ns, address, dev);
    if (lladdr !== undefined) return lladdr;
    await sleep(100);
  }
  return undefined;
}

test(
  'bridge networking: frames a guest forges (another MAC, neighbour advertisements for others, a DHCP server, router advertisements, a chosen link-local source) go nowhere',
  needs('nft', 'ip', 'bridge', 'python3'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const netns = `cumulo-t-${randomInt(1 << 24).toString(16)}`;
    const network = new BridgeNetwork({ netns, log: capturedLog().logger });
    t.after(() => network.removeNamespace());
    // Made here, so the guests' veths are in place before the attach takes them for taps.
    await ip('netns', 'add', netns);
    // Off the first subnets, which the real-node clouds give their nodes (the host routes them too).
    const subnet = 128 + randomInt(128);
    const attacker = await fakeGuest(t, netns, network, 1, subnet);
    const victim = await fakeGuest(t, netns, network, 2, subnet);
    const bridge = regionBridgeName(REGION);
    const gatewayMac = bridgeMac(bridge);

    // Before: the namespace and the victim know each other, and the bridge knows where the victim's MAC is.
    assert.equal(await resolve(netns, victim.ipv6, bridge), victim.mac);
    assert.equal(await resolve(victim.ns, 'fe80::1', 'eth0'), gatewayMac);
    const portOf = async (mac: string) => {
      const fdb = JSON.parse((await exec(systemTool('bridge'), ['-n', netns, '-j', 'fdb', 'show', 'br', bridge])).stdout) as {
        mac: string;
        ifname: string;
      }[];
      return fdb.find((entry) => entry.mac === mac)?.ifname;
    };
    assert.equal(await portOf(victim.mac), tapName(victim.key, 0));

    const dhcp = await listenUdp(victim.ns, '0.0.0.0', 68);
    const chosenSource = await listenUdp(victim.ns, '::', 5353);
    const frames: Frame[] = [
      // The victim's MAC on an IPv4 datagram from the attacker's own address.
      {
        kind: 'udp4',
        ethSrc: victim.mac,
        ethDst: gatewayMac,
        src: attacker.ipv4,
        dst: `100.64.${subnet}.1`,
        sport: 40000,
        dport: 9,
      },
      // From its own link-local address, with its own MAC: advertisements for the victim and for the gateway.
      {
        kind: 'na',
        ethSrc: attacker.mac,
        ethDst: '33:33:00:00:00:01',
        src: attacker.linkLocal,
        dst: 'ff02::1',
        target: victim.ipv6,
        lladdr: attacker.mac,
      },
      {
        kind: 'na',
        ethSrc: attacker.mac,
        ethDst: '33:33:00:00:00:01',
        src: attacker.linkLocal,
        dst: 'ff02::1',
        target: 'fe80::1',
        lladdr: attacker.mac,
      },
      // A DHCP server's offer, from its own address.
      {
        kind: 'udp4',
        ethSrc: attacker.mac,
        ethDst: 'ff:ff:ff:ff:ff:ff',
        src: attacker.ipv4,
        dst: '255.255.255.255',
        sport: 67,
        dport: 68,
      },
      // A router advertisement of a prefix of its own.
      { kind: 'ra', ethSrc: attacker.mac, src: attacker.linkLocal, prefix: '2001:db8:bad::' },
      // A link-local source of its choosing.
      {
        kind: 'udp6',
        ethSrc: attacker.mac,
        ethDst: victim.mac,
        src: 'fe80::1234',
        dst: victim.linkLocal,
        sport: 40000,
        dport: 5353,
      },
    ];
    await sendFrames(attacker.ns, frames);

    assert.equal(await portOf(victim.mac), tapName(victim.key, 0), "the victim's MAC stays at the victim's port");
    await sleep(300);
    assert.equal(await neighbour(netns, victim.ipv6, bridge), victim.mac, 'the namespace still reaches the victim at its MAC');
    assert.equal(await neighbour(victim.ns, 'fe80::1', 'eth0'), gatewayMac, "the victim's gateway is still the bridge");
    assert.equal(await dhcp.heard(), 'nothing', 'no DHCP offer reaches the victim');
    assert.equal(await chosenSource.heard(), 'nothing', 'nothing from a link-local address the attacker chose');
    const routes = (await ip('-n', victim.ns, '-6', 'address', 'show', 'dev', 'eth0')).stdout;
    assert.doesNotMatch(routes, /2001:db8:bad:/, 'no address from the forged prefix');

    // The same frames with the attacker's own addresses as source and target pass: the checks are its own addresses, not the kinds.
    const own6 = await listenUdp(victim.ns, '::', 5353);
    const own4 = await listenUdp(victim.ns, '0.0.0.0', 6868);
    await sendFrames(attacker.ns, [
      {
        kind: 'udp6',
        ethSrc: attacker.mac,
        ethDst: victim.mac,
        src: attacker.linkLocal,
        dst: victim.linkLocal,
        sport: 40000,
        dport: 5353,
      },
      { kind: 'udp4', ethSrc: attacker.mac, ethDst: victim.mac, src: attacker.ipv4, dst: victim.ipv4, sport: 67, dport: 6868 },
    ]);
    assert.equal(await own6.heard(), 'received forged');
    assert.equal(await own4.heard(), 'nothing', 'a DHCP server port is a source no guest sends from');
    const plain = await listenUdp(victim.ns, '0.0.0.0', 6868);
    await sendFrames(attacker.ns, [
      { kind: 'udp4', ethSrc: attacker.mac, ethDst: victim.mac, src: attacker.ipv4, dst: victim.ipv4, sport: 40000, dport: 6868 },
    ]);
    assert.equal(await plain.heard(), 'received forged');
  },
);
