import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { bridgeMac, machineTable, regionBridgeName } from '../../src/compute/qemu/bridge-names.ts';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { COMPUTE_DIR } from '../../src/data-dir.ts';
import { createRealNode, REAL_NODE_TOOLS, type RealCloud, sshKeyPair, sshRun, startBridgeCloud } from '../helpers/real-nodes.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const MIB = 1024 * 1024;

/*
 * Two tenants on one bridge-networked host, each root in its nodes: what one tries against the
 * other, from inside its guest, and what the other (and the host) saw. One cloud and three booted
 * busybox guests serve every attack: V (the victim) and W (its neighbour) of one account, X of another.
 */

type SshTarget = Parameters<typeof sshRun>[0];

interface Guest {
  id: number;
  ipv4: string;
  ipv6: string;
  mac: string;
  linkLocal: string;
  gateway4: string;
  target: SshTarget;
}

const SSH_ONLY = {
  inbound_policy: 'DROP',
  outbound_policy: 'ACCEPT',
  inbound: [{ protocol: 'TCP', ports: '22', action: 'ACCEPT', label: 'ssh', addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] } }],
  outbound: [],
};

/** The command's output over SSH, or null when SSH itself fails (no connection, timed out). */
async function sshOrNull(target: SshTarget, command: string, timeoutS = 5): Promise<string | null> {
  return sshRun(target, command, timeoutS).catch(() => null);
}

/** A host address other than loopback: what a guest would try to reach the host's services at. */
function hostAddress(): string {
  for (const list of Object.values(os.networkInterfaces()))
    for (const address of list ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  throw new Error('the host has no IPv4 address besides loopback');
}

/** A TCP server on every host address (0.0.0.0) that greets and closes: a host service bound to the wildcard. */
async function wildcardService(t: TestContext): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket.on('close', () => sockets.delete(socket)));
    socket.end('host-service\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  // A guest's connection may be left half open (its firewall changed under it): ended from here.
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

async function guest(cloud: RealCloud, id: number, privateKey: string, token?: string): Promise<Guest> {
  const node = (await cloud.api('GET', `/v4/node/instances/${id}`, undefined, token)).body;
  const target = { host: node.ipv4[0] as string, port: 22, privateKey };
  const [mac = '', linkLocal = '', gateway4 = ''] = (
    await sshRun(
      target,
      'cat /sys/class/net/eth0/address; ip -6 addr show dev eth0 scope link | awk \'/inet6/ { sub("/.*", "", $2); print $2 }\'; ip -4 route | awk \'/^default/ { print $3 }\'',
    )
  )
    .trim()
    .split('\n');
  return { id, ipv4: target.host, ipv6: String(node.ipv6).split('/')[0] ?? '', mac, linkLocal, gateway4, target };
}

/** Waits until a chain of the machine's firewall in the namespace (`inbound` or `outbound`) shows what its firewall makes of it. */
async function firewallLoaded(netns: string, nodeId: number, chain: 'inbound' | 'outbound', loaded: RegExp): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const table = await exec(systemTool('ip'), [
      ...['netns', 'exec', netns, systemTool('nft'), 'list', 'chain', 'inet', machineTable(`node-${nodeId}`), chain],
    ]);
    if (loaded.test(table.stdout)) return;
    if (Date.now() > deadline) assert.fail(`node ${nodeId}'s firewall is not loaded:\n${table.stdout}`);
    await sleep(200);
  }
}

/** A namespace standing for the world beyond the host: a link to the host and a server that answers with the address it saw. */
async function outside(t: TestContext): Promise<{ address: string; port: number }> {
  const ns = `cumulo-out-${randomInt(1 << 24).toString(16)}`;
  const veth = `ov-${ns.slice(-6)}`;
  const ip = (...args: string[]) => exec(systemTool('ip'), args);
  await ip('netns', 'add', ns);
  t.after(async () => {
    await ip('netns', 'delete', ns).catch(() => undefined);
    await ip('link', 'delete', veth).catch(() => undefined);
  });
  await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
  await ip('address', 'add', '198.51.100.1/24', 'dev', veth);
  await ip('link', 'set', veth, 'up');
  await ip('-n', ns, 'address', 'add', '198.51.100.2/24', 'dev', 'eth0');
  await ip('-n', ns, 'link', 'set', 'eth0', 'up');
  await ip('-n', ns, 'link', 'set', 'lo', 'up');
  // The outside has no route to the nodes' addresses: only a translated source can be answered.
  const port = 8080;
  const script = `const s=require('net').createServer(c=>c.end(c.remoteAddress.replace(/^::ffff:/,'')+'\\n'));s.listen(${port},'198.51.100.2')`;
  const server = execFile(systemTool('ip'), ['netns', 'exec', ns, process.execPath, '-e', script]);
  t.after(() => server.kill());
  return { address: '198.51.100.2', port };
}

test(
  'tenants apart in bridge networking: what a root guest of one account tries against another account lands nowhere',
  needs(...REAL_NODE_TOOLS, 'nft', 'ip', 'bridge'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const closedPort = await wildcardService(t);
    const openPort = await wildcardService(t);
    const cloud = await startBridgeCloud(t, {
      CUMULO_NODE_HOST_PORTS: `${openPort}/tcp`,
      CUMULO_NODE_NAT: 'on',
      CUMULO_CONSOLE_LOG_MB: '1',
    });
    const { netns } = cloud;
    const world = await outside(t);
    const key = await sshKeyPair(t);
    await cloud.cli('account', 'create', '--email', 'tenant-b@example.com', '--username', 'tenantb');
    const tokenB = (await cloud.cli('token', 'create', '--username', 'tenantb')).trim();

    const vlan = (address: string) => ({
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'lab', ipam_address: address }],
    });
    const [v, w, x] = await Promise.all([
      createRealNode(cloud, { image: 'node/busybox', label: 'victim', publicKey: key.publicKey, extra: vlan('10.0.0.1/24') }),
      createRealNode(cloud, { image: 'node/busybox', label: 'neighbour', publicKey: key.publicKey, extra: vlan('10.0.0.3/24') }),
      createRealNode(cloud, {
        image: 'node/busybox',
        label: 'attacker',
        publicKey: key.publicKey,
        extra: vlan('10.0.0.2/24'),
        token: tokenB,
      }),
    ]);
    // V lets in SSH alone (account A's firewall); V and W answer pings to broadcast addresses.
    const edge = await cloud.api('POST', '/v4/networking/firewalls', { label: 'edge', rules: SSH_ONLY, devices: { nodes: [v] } });
    assert.equal(edge.status, 200, JSON.stringify(edge.body));
    await Promise.all([
      cloud.waitForStatus(v, 'running'),
      cloud.waitForStatus(w, 'running'),
      cloud.waitForStatus(x, 'running', 180_000, tokenB),
    ]);
    await firewallLoaded(netns, v, 'inbound', /comment "firewall \d+ inbound\[0\] ssh"/);
    const [victim, neighbour, attacker] = await Promise.all([
      guest(cloud, v, key.privateKey),
      guest(cloud, w, key.privateKey),
      guest(cloud, x, key.privateKey, tokenB),
    ]);
    for (const g of [victim, neighbour]) await sshRun(g.target, 'sysctl -q -w net.ipv4.icmp_echo_ignore_broadcasts=0');
    const reached = (from: Guest, command: string) =>
      sshRun(from.target, `${command} >/dev/null 2>&1 && echo reached || echo not`);

    await t.test(
      "a VLAN is its account's: the same label in another account is another segment, and the node's firewall filters it",
      async () => {
        assert.equal(await reached(victim, 'ping -c 1 -W 3 10.0.0.3'), 'reached\n', 'V reaches W, its own account, on the VLAN');
        assert.equal(await reached(attacker, 'ping -c 1 -W 3 10.0.0.3'), 'not\n', "X does not reach W on its own VLAN 'lab'");
        assert.equal(await reached(attacker, 'ping -c 1 -W 3 10.0.0.1'), 'not\n', "X does not reach V on its own VLAN 'lab'");
        assert.equal(await reached(neighbour, 'ping -c 1 -W 3 10.0.0.1'), 'not\n', "V's firewall drops W's ping on the VLAN");
        const banner = await sshRun(neighbour.target, 'echo | nc -w 3 10.0.0.1 22 | head -c 7');
        assert.equal(banner, 'SSH-2.0', "and lets W's SSH in on the VLAN, as its rule says");
      },
    );

    await t.test("a guest that takes another node's MAC and address receives none of its traffic", async () => {
      // For 6 s, X wears V's MAC and address and sends as fast as it can (pings to a multicast group no
      // one answers, from its link-local address), then takes its own back.
      const takeover = [
        'sysctl -q -w net.ipv6.conf.eth0.keep_addr_on_down=1 net.ipv6.conf.eth0.accept_dad=0',
        `ip link set eth0 down; ip link set eth0 address ${victim.mac}; ip link set eth0 up`,
        `ip addr add ${victim.ipv4}/24 dev eth0`,
        'cat /sys/class/net/eth0/address > /root/worn',
        'end=$(($(date +%s) + 6)); while [ $(date +%s) -lt $end ]; do ping6 -w 1 -i 0.01 -I eth0 ff02::1:2; done',
        `ip addr del ${victim.ipv4}/24 dev eth0`,
        `ip link set eth0 down; ip link set eth0 address ${attacker.mac}; ip link set eth0 up`,
        `ip route add default via ${attacker.gateway4}`,
        `ip -6 addr del ${victim.linkLocal}/64 dev eth0`,
      ].join('; ');
      await sshRun(attacker.target, `setsid sh -c '${takeover}' >/dev/null 2>&1 </dev/null &`);
      await sleep(2000);
      const fdb = async () =>
        (await exec(systemTool('bridge'), ['-n', netns, 'fdb', 'show', 'br', regionBridgeName('us-east')])).stdout
          .split('\n')
          .filter((line) => line.startsWith(victim.mac))
          .join('; ');
      for (let i = 0; i < 3; i += 1) {
        t.diagnostic(`V's MAC in the bridge: ${await fdb()}`);
        assert.equal(await sshOrNull(victim.target, 'hostname'), 'victim\n', `SSH to V's address reaches V (try ${i + 1})`);
        await sleep(500);
      }
      let back: string | null = null;
      for (let i = 0; i < 20 && back === null; i += 1) back = await sshOrNull(attacker.target, 'hostname', 3);
      assert.equal(back, 'attacker\n', 'X is back at its own MAC');
      assert.equal(await sshRun(attacker.target, 'cat /root/worn'), `${victim.mac}\n`, "X wore V's MAC meanwhile");
    });

    await t.test('a neighbour advertisement for the gateway or another node is not taken from a guest', async () => {
      const gatewayMac = bridgeMac(regionBridgeName('us-east'));
      await sshRun(
        attacker.target,
        `sysctl -q -w net.ipv6.conf.eth0.accept_dad=0; ip -6 addr add fe80::1/64 dev eth0; ip -6 addr add ${victim.ipv6}/64 dev eth0`,
      );
      try {
        for (let i = 0; i < 5; i += 1) {
          const seen = await sshRun(
            victim.target,
            'ip -6 neigh flush dev eth0; ping6 -c 1 -W 2 -I eth0 fe80::1 >/dev/null 2>&1; sleep 0.3; ip -6 neigh show fe80::1 dev eth0',
          );
          assert.match(seen, new RegExp(`lladdr ${gatewayMac}`), `V's gateway is the bridge (round ${i + 1}): ${seen}`);
          await exec(systemTool('ip'), ['-n', netns, '-6', 'neigh', 'flush', 'to', victim.ipv6]);
          const overIpv6 = await sshOrNull({ ...victim.target, host: victim.ipv6 }, 'hostname');
          assert.equal(overIpv6, 'victim\n', `the host reaches V over IPv6 (round ${i + 1})`);
        }
      } finally {
        await sshRun(attacker.target, `ip -6 addr del fe80::1/64 dev eth0; ip -6 addr del ${victim.ipv6}/64 dev eth0`);
      }
    });

    await t.test("broadcast and multicast meet the node's inbound policy", async () => {
      // What V's kernel received, by its own counters: its answers would not tell (its firewall drops
      // an answer to a broadcast as a packet of no connection).
      const echoesIn = async (g: Guest) =>
        (
          await sshRun(
            g.target,
            "awk '/^Icmp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == \"InEchos\") c = i; n = 1 } else print $c }' /proc/net/snmp; awk '/^Icmp6InEchos/ { print $2 }' /proc/net/snmp6",
          )
        )
          .trim()
          .split('\n')
          .map(Number);
      const [v4Before = 0, v6Before = 0] = await echoesIn(victim);
      const broadcast = "ipcalc -b $(ip -4 addr show dev eth0 | awk '/inet / { print $2; exit }') | cut -d= -f2";
      const pings = await sshRun(
        attacker.target,
        `ping -c 3 -W 2 $(${broadcast}) 2>&1; ping6 -c 3 -W 2 -I eth0 ff02::1 2>&1; true`,
      );
      assert.match(pings, new RegExp(`from ${neighbour.ipv4}:`), `W answers the broadcast ping:\n${pings}`);
      assert.match(pings, new RegExp(`from ${neighbour.linkLocal}:`), `W answers the multicast ping:\n${pings}`);
      const [v4After = 0, v6After = 0] = await echoesIn(victim);
      assert.equal(v4After - v4Before, 0, "V's inbound DROP policy drops the broadcast pings");
      assert.equal(v6After - v6Before, 0, "V's inbound DROP policy drops the multicast pings");
    });

    await t.test('guests reach nothing of the host but the ports the operator lists', async () => {
      const host = hostAddress();
      const connect = (port: number) => sshRun(attacker.target, `echo | nc -w 3 ${host} ${port} 2>/dev/null; true`);
      assert.equal(await connect(closedPort), '', `a service on 0.0.0.0:${closedPort} is out of the guests' reach`);
      assert.equal(await connect(openPort), 'host-service\n', `port ${openPort} is listed (CUMULO_NODE_HOST_PORTS)`);
      // Answers to what the host starts still come back: SSH above, and a probe's connection here.
      assert.equal(await sshOrNull(attacker.target, 'hostname'), 'attacker\n');
    });

    await t.test('with NAT on, guests reach the world behind the host address', async () => {
      const answer = await sshRun(attacker.target, `echo | nc -w 5 ${world.address} ${world.port}; true`);
      assert.equal(answer, '198.51.100.1\n', 'the outside saw the host address, not the node');
    });

    await t.test("a guest's console output takes at most about twice the console log cap", async () => {
      const files = machineFiles(path.join(cloud.dataDir, COMPUTE_DIR), `node-${x}`);
      // 1.125 MiB on the serial console, past the 1 MiB cap this cloud sets (a serial port is slow under TCG).
      await sshRun(attacker.target, "dd if=/dev/zero bs=1024 count=1152 2>/dev/null | tr '\\0' x > /dev/ttyS0");
      const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
      // The guest's tty may still be draining to the slow serial port when dd returns: wait for the
      // rotation, not only for the log to be under its cap (as it is before the output arrives).
      const deadline = Date.now() + 30_000;
      while ((size(files.consoleLog) > MIB || size(files.previousConsoleLog) < MIB) && Date.now() < deadline) await sleep(200);
      t.diagnostic(`console log ${size(files.consoleLog)} bytes, the one before ${size(files.previousConsoleLog)}`);
      assert.ok(size(files.consoleLog) <= MIB, `the log is back under its cap: ${size(files.consoleLog)}`);
      const previous = size(files.previousConsoleLog);
      // The newest cap of what was rotated, and what the guest printed while it was read.
      assert.ok(previous >= MIB && previous < MIB + 256 * 1024, `the log before it holds the newest cap: ${previous}`);
      assert.match(fs.readFileSync(files.previousConsoleLog, 'latin1').slice(-4096), /^x+$/, "and it is the guest's output");
    });

    await t.test("a link-local address of the guest's choosing does not pass its outbound firewall", async () => {
      const fence = await cloud.api(
        'POST',
        '/v4/networking/firewalls',
        {
          label: 'fence',
          rules: { inbound_policy: 'ACCEPT', outbound_policy: 'DROP', inbound: [], outbound: [] },
          devices: { nodes: [x] },
        },
        tokenB,
      );
      assert.equal(fence.status, 200, JSON.stringify(fence.body));
      await firewallLoaded(netns, x, 'outbound', /\n\s*drop\n\s*\}/);
      const ping = `ping6 -c 1 -W 2 -I eth0 ${neighbour.linkLocal}`;
      assert.equal(await reached(attacker, ping), 'not\n', 'outbound DROP stops its own link-local address');
      const chosen = [
        'sysctl -q -w net.ipv6.conf.eth0.accept_dad=0',
        `ip -6 addr del ${attacker.linkLocal}/64 dev eth0`,
        'ip -6 addr add fe80::1234/64 dev eth0',
        `${ping} >/dev/null 2>&1 && echo reached || echo not`,
        'ip -6 addr del fe80::1234/64 dev eth0',
        `ip -6 addr add ${attacker.linkLocal}/64 dev eth0`,
      ].join('; ');
      assert.equal(await sshRun(attacker.target, chosen), 'not\n', 'and one it chose');
    });
  },
);
