import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { verify } from 'unixcrypt';
import { hostVethName, machineTable } from '../../src/compute/qemu/bridge-names.ts';
import { diskFiles, machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { COMPUTE_DIR } from '../../src/data-dir.ts';
import { connectConsole } from '../helpers/console-client.ts';
import {
  createRealNode,
  REAL_NODE_ROOT_PASS,
  REAL_NODE_TOOLS,
  type RealCloud,
  sshKeyPair,
  sshRun,
  startBridgeCloud,
} from '../helpers/real-nodes.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const ROOT_PASS = REAL_NODE_ROOT_PASS;
const SSH_RULE = {
  protocol: 'TCP',
  ports: '22',
  action: 'ACCEPT',
  label: 'ssh',
  addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
};

/** A TCP connection to address:port from the host: `timeout` is what a firewall dropping it shows, `refused` a port nothing listens on. */
function tcpProbe(address: string, port: number, timeoutMs = 1000): Promise<'connected' | 'refused' | 'timeout'> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    const done = (result: 'connected' | 'refused' | 'timeout') => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done('timeout'));
    socket.once('connect', () => done('connected'));
    socket.once('error', () => done('refused'));
  });
}

/** Whether the host's route to `address` goes into the namespace (through its veth). */
async function routedInto(netns: string, address: string): Promise<boolean> {
  const [route] = JSON.parse((await exec(systemTool('ip'), ['-j', 'route', 'get', address])).stdout) as { dev?: string }[];
  return route?.dev === hostVethName(netns);
}

type BridgeCloud = Awaited<ReturnType<typeof startBridgeCloud>>;
type KeyPair = Awaited<ReturnType<typeof sshKeyPair>>;
type SshTarget = Parameters<typeof sshRun>[0];
/** A running node of the bridge cloud: its id, its addresses and its SSH target. */
interface BridgeNode {
  id: number;
  ipv4: string;
  ipv6: string;
  target: SshTarget;
}

/**
 * A node reached from the host at its own addresses, its firewall given while it provisions loaded
 * before it runs and changed by a rules PUT, rebooted, and its serial console over the WebSocket.
 */
async function firewalledNode(t: TestContext, cloud: BridgeCloud, key: KeyPair): Promise<BridgeNode> {
  const { netns } = cloud;
  const id = await createRealNode(cloud, { image: 'node/busybox', label: 'bridge-one', publicKey: key.publicKey });
  const bootStarted = Date.now();
  // While the node provisions: inbound policy DROP and no rule for port 22.
  const firewall = await cloud.api('POST', '/v4/networking/firewalls', {
    label: 'edge',
    rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [], outbound: [] },
    devices: { nodes: [id] },
  });
  assert.equal(firewall.status, 200, JSON.stringify(firewall.body));
  // Its apply job keeps it for the machine before the image is deployed and the machine started, which loads it.
  const machine = machineFiles(path.join(cloud.dataDir, COMPUTE_DIR), `node-${id}`);
  for (let i = 0; i < 100 && !fs.existsSync(machine.firewall); i += 1) await sleep(50);
  assert.ok(fs.existsSync(machine.firewall), 'the firewall is kept for the machine');
  assert.ok(!fs.existsSync(machine.pid), 'kept before the machine started');
  await cloud.waitForStatus(id, 'running');
  t.diagnostic(`create to running (bridge networking): ${((Date.now() - bootStarted) / 1000).toFixed(1)} s`);

  const node = (await cloud.api('GET', `/v4/node/instances/${id}`)).body;
  const ipv4: string = node.ipv4[0];
  const ipv6: string = node.ipv6.split('/')[0];
  assert.ok(await routedInto(netns, ipv4), `the host routes ${ipv4} into namespace ${netns}`);
  assert.ok(await routedInto(netns, ipv6), `the host routes ${ipv6} into namespace ${netns}`);
  const target = { host: ipv4, port: 22, privateKey: key.privateKey };
  assert.equal(await tcpProbe(ipv4, 22), 'timeout', 'port 22 is filtered from the first boot');
  assert.equal(await tcpProbe(ipv4, 80), 'timeout', 'the policy drops what no rule accepts');

  // The rules PUT queues the apply: SSH works once the job has loaded them.
  const putAt = Date.now();
  const put = await cloud.api('PUT', `/v4/networking/firewalls/${firewall.body.id}/rules`, {
    inbound_policy: 'DROP',
    outbound_policy: 'ACCEPT',
    inbound: [SSH_RULE],
    outbound: [],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  while ((await tcpProbe(ipv4, 22, 250)) !== 'connected' && Date.now() - putAt < 15_000) await sleep(50);
  t.diagnostic(`rules PUT to port 22 open: ${((Date.now() - putAt) / 1000).toFixed(2)} s`);
  assert.equal(await sshRun(target, 'hostname'), 'bridge-one\n');

  const shadowHash = (await sshRun(target, 'grep ^root: /etc/shadow')).split(':')[1] ?? '';
  assert.ok(verify(ROOT_PASS, shadowHash), `root's hash in /etc/shadow is not of the root_pass given: ${shadowHash}`);
  assert.match(await sshRun(target, 'ip -4 addr show eth0'), new RegExp(`inet ${ipv4.replaceAll('.', '\\.')}/24`));
  let overIpv6: string | null = null;
  for (let i = 0; i < 10 && overIpv6 === null; i += 1)
    overIpv6 = await sshRun({ ...target, host: ipv6 }, 'hostname', 3).catch(() => null);
  assert.equal(overIpv6, 'bridge-one\n', 'the host reaches the node over IPv6');

  // Reboot: the guest really goes down and comes up (a file in /run, a tmpfs, is gone), its firewall loaded again.
  await sshRun(target, 'touch /run/before-reboot');
  assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/reboot`, {})).status, 200);
  await cloud.waitForStatus(id, 'running');
  assert.equal(await sshRun(target, 'ls /run/before-reboot 2>/dev/null || echo gone'), 'gone\n');
  const table = await exec(systemTool('ip'), [
    'netns',
    'exec',
    netns,
    systemTool('nft'),
    'list',
    'table',
    'inet',
    machineTable(`node-${id}`),
  ]);
  assert.match(table.stdout, /tcp dport 22 accept comment "firewall \d+ inbound\[0\] ssh"/);
  assert.equal(await tcpProbe(ipv4, 80), 'timeout', 'the policy drops what no rule accepts after the reboot');

  // The serial console: a fresh login prompt for a new line, then a login with the root_pass.
  const ticket = await cloud.api('POST', `/v4/node/instances/${id}/console`);
  assert.equal(ticket.status, 200, JSON.stringify(ticket.body));
  const serial = connectConsole(ticket.body.url);
  await serial.opened;
  /** Types `text` into the console; what the console prints from then on is where its answer is looked for. */
  const type = (text: string) => {
    const from = serial.received().length;
    serial.socket.send(text);
    return from;
  };
  await serial.waitFor('bridge-one login:', 10_000, type('\n'));
  await serial.waitFor('Password:', 10_000, type('root\n'));
  await serial.waitFor('#', 10_000, type(`${ROOT_PASS}\n`));
  await serial.waitFor('console-42', 10_000, type('echo console-$((6 * 7))\n'));
  serial.socket.close();
  await serial.closed;
  return { id, ipv4, ipv6, target };
}

/** Deletes the node and waits for the host's routes to its addresses to go. */
async function deletedWithItsRoutes(cloud: BridgeCloud, node: BridgeNode): Promise<void> {
  const { netns } = cloud;
  assert.equal((await cloud.api('DELETE', `/v4/node/instances/${node.id}`)).status, 200);
  const deadline = Date.now() + 30_000;
  while ((await routedInto(netns, node.ipv4)) && Date.now() < deadline) await sleep(200);
  assert.ok(!(await routedInto(netns, node.ipv4)), `the host route to ${node.ipv4} outlived the node`);
  assert.ok(!(await routedInto(netns, node.ipv6)), `the host route to ${node.ipv6} outlived the node`);
}

type Points = [number, number][];
type Traffic = Record<'in' | 'out' | 'private_in' | 'private_out', Points>;
interface NodeStats {
  cpu: Points;
  io: { io: Points; swap: Points };
  netv4: Traffic;
  netv6: Traffic;
}
/** The sampling grid: five minutes scaled by CUMULO_TIME_SCALE. */
const TIME_SCALE = 0.003;
const BUCKET_S = 300 * TIME_SCALE;
const MIB = 2 ** 20;

/** What a series adds up to over its points (a rate a bucket long each): bytes for bits/s, blocks for blocks/s. */
const total = (points: Points, per = 1) => points.reduce((sum, [, v]) => sum + v * BUCKET_S, 0) / per;
const max = (points: Points) => Math.max(0, ...points.map(([, v]) => v));

/** How many bytes `command` on the guest printed, read over SSH; rejects (without them) when SSH fails. */
function sshBytes(target: { host: string; privateKey: string }, command: string, connectTimeoutS = 20): Promise<number> {
  const options = ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeoutS}`, '-o', 'StrictHostKeyChecking=no'];
  options.push('-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR');
  return new Promise((resolve, reject) => {
    const args = ['-i', target.privateKey, ...options, `root@${target.host}`, command];
    execFile(systemTool('ssh'), args, { encoding: 'buffer', maxBuffer: 64 * MIB }, (error, stdout) => {
      if (error) reject(new Error(`ssh ${target.host} ${command}: ${error.message.slice(0, 200)}`));
      else resolve(stdout.length);
    });
  });
}

async function monthBytes(cloud: RealCloud, id: number): Promise<{ bytes_in: number; bytes_out: number }> {
  const now = new Date();
  const res = await cloud.api('GET', `/v4/node/instances/${id}/transfer/${now.getUTCFullYear()}/${now.getUTCMonth() + 1}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Polls the node's day stats until `ready` holds of them (failing after `timeoutMs`). */
async function statsWhen(
  cloud: RealCloud,
  id: number,
  ready: (stats: NodeStats) => boolean,
  timeoutMs = 10_000,
): Promise<NodeStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await cloud.api('GET', `/v4/node/instances/${id}/stats`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const stats = { title: res.body.title, ...res.body.data } as NodeStats;
    if (ready(stats)) return stats;
    if (Date.now() > deadline) assert.fail(`the stats never showed it: ${JSON.stringify(stats)}`);
    await sleep(300);
  }
}

/** The node's stats and transfer come from its machine: CPU, disk IO and traffic by family as the guest makes them. */
async function measuredNode(t: TestContext, cloud: BridgeCloud, node: BridgeNode): Promise<void> {
  const { id, target, ipv6 } = node;

  // The boot took CPU: sampled once the machine ran.
  await statsWhen(cloud, id, (s) => max(s.cpu) > 0);
  const before = await monthBytes(cloud, id);

  // 8 MiB written to the guest's disk, 4 MiB sent by the guest over IPv4 and 1 MiB over IPv6.
  await sshRun(target, 'dd if=/dev/zero of=/root/written bs=65536 count=128 2>/dev/null && sync');
  assert.equal(await sshBytes(target, 'dd if=/dev/zero bs=65536 count=64 2>/dev/null'), 4 * MIB);
  let overIpv6: number | null = null;
  for (let i = 0; i < 10 && overIpv6 === null; i += 1)
    overIpv6 = await sshBytes({ ...target, host: ipv6 }, 'dd if=/dev/zero bs=65536 count=16 2>/dev/null', 3).catch(() => null);
  assert.equal(overIpv6, 1 * MIB, 'the guest sent 1 MiB over IPv6');
  const sentAt = Date.now();

  // Once the sampler has read the counters after it: the traffic in the family it went by.
  const stats = await statsWhen(cloud, id, (s) => total(s.netv6.out, 8) >= 0.9 * MIB && total(s.netv4.out, 8) >= 3.6 * MIB);
  t.diagnostic(`sent to seen in the stats: ${((Date.now() - sentAt) / 1000).toFixed(1)} s`);
  const v4Out = total(stats.netv4.out, 8);
  const v6Out = total(stats.netv6.out, 8);
  t.diagnostic(`bytes out by the stats: IPv4 ${Math.round(v4Out)}, IPv6 ${Math.round(v6Out)}`);
  assert.ok(v6Out < 2 * MIB, `IPv4 traffic is not counted as IPv6: ${v6Out}`);
  assert.ok(v4Out < 8 * MIB, `about what was sent over IPv4: ${v4Out}`);
  assert.ok(total(stats.netv4.in, 8) > 0, 'the SSH sessions came in over IPv4');
  assert.ok(total(stats.netv6.in, 8) > 0, 'and one over IPv6');
  assert.equal(max(stats.netv4.private_in) + max(stats.netv4.private_out), 0, 'no private address, no private traffic');
  const blocks = total(stats.io.io);
  assert.ok(blocks >= (8 * MIB) / 512, `the 8 MiB written show as blocks: ${blocks}`);
  assert.ok(max(stats.cpu) > 0);

  const after = await monthBytes(cloud, id);
  assert.ok(
    after.bytes_out - before.bytes_out >= 5 * MIB,
    `transfer grew by what was sent: ${JSON.stringify({ before, after })}`,
  );
  const transfer = (await cloud.api('GET', `/v4/node/instances/${id}/transfer`)).body;
  assert.equal(transfer.used, after.bytes_out, 'used is the public outbound bytes of the month');
}

interface Event {
  action: string;
  status: string;
  percent_complete: number;
  entity: { id: number } | null;
}

const GIB_SECTORS = (1024 * 1024 * 1024) / 512;

/** The guest's memory (MB, as the kernel counts it), vCPUs and root disk size (GiB), over SSH. */
async function guestShape(target: Parameters<typeof sshRun>[0]): Promise<{ memoryMb: number; vcpus: number; diskGib: number }> {
  const out = await sshRun(target, 'grep MemTotal /proc/meminfo; grep -c ^processor /proc/cpuinfo; cat /sys/block/vda/size');
  const [mem, cpus, sectors] = out.trim().split('\n');
  return {
    memoryMb: Math.round(Number(/(\d+)/.exec(mem ?? '')?.[1]) / 1024),
    vcpus: Number(cpus),
    diskGib: Math.round(Number(sectors) / GIB_SECTORS),
  };
}

/** Posts a node action and waits for the node to be running again. */
async function changeAndWait(cloud: RealCloud, id: number, action: string, body: unknown): Promise<number> {
  const started = Date.now();
  const res = await cloud.api('POST', `/v4/node/instances/${id}/${action}`, body);
  assert.equal(res.status, 200, `${action}: ${JSON.stringify(res.body)}`);
  await cloud.waitForStatus(id, 'running');
  return (Date.now() - started) / 1000;
}

/**
 * A node resized (memory, vCPUs, the disk grown), migrated to another region (new addresses, reached
 * there) and rescued (a rescue system with the node's disk on sda, the node's own keys), then booted
 * back into its own system.
 */
async function changedNode(t: TestContext, cloud: BridgeCloud, key: KeyPair): Promise<void> {
  const id = await createRealNode(cloud, { image: 'node/busybox', label: 'changing', publicKey: key.publicKey });
  // While the node boots, its create event shows the disks written: percent_complete from the copy's progress.
  const seen = new Set<string>();
  for (let status = ''; status !== 'running'; ) {
    const events = (await cloud.api('GET', '/v4/account/events?page_size=25')).body.data as Event[];
    const created = events.find((e) => e.action === 'node_create' && e.entity?.id === id);
    if (created) seen.add(`${created.status} ${created.percent_complete}`);
    status = (await cloud.api('GET', `/v4/node/instances/${id}`)).body.status;
    await sleep(100);
  }
  assert.ok(
    [...seen].some((s) => /^started ([1-9]|[1-9]\d)$/.test(s)),
    `the create reported progress between 0 and 100: ${[...seen].join(', ')}`,
  );
  const nodeAt = async () => {
    const node = (await cloud.api('GET', `/v4/node/instances/${id}`)).body;
    return { node, target: { host: node.ipv4[0] as string, port: 22, privateKey: key.privateKey } };
  };
  let { node, target } = await nodeAt();
  const nanode = await guestShape(target);
  assert.deepEqual([nanode.vcpus, nanode.diskGib], [1, 25]);
  assert.ok(nanode.memoryMb <= 1024, `1 GB of memory: ${nanode.memoryMb} MB`);
  await sshRun(target, 'echo kept > /root/kept');

  // Resize with the disk grown into the new type's storage, then to a type with more vCPUs, the disk left.
  const resized = await changeAndWait(cloud, id, 'resize', { type: 'g6-standard-1' });
  t.diagnostic(`resize to g6-standard-1 with the disk grown, to running: ${resized.toFixed(1)} s`);
  const standard1 = await guestShape(target);
  assert.equal(standard1.diskGib, 50, 'the data disk grew into the new type (minus swap) and the guest sees it');
  assert.ok(standard1.memoryMb > 1500 && standard1.memoryMb <= 2048, `2 GB of memory: ${standard1.memoryMb} MB`);
  const rootKb = Number((await sshRun(target, 'df -k / | tail -1')).trim().split(/\s+/)[1]);
  assert.ok(rootKb > 45 * 1024 * 1024, `the filesystem grew with the disk: ${rootKb} KB`);
  await changeAndWait(cloud, id, 'resize', { type: 'g6-standard-2', allow_auto_disk_resize: false });
  const standard2 = await guestShape(target);
  assert.deepEqual([standard2.vcpus, standard2.diskGib], [2, 50]);
  assert.ok(standard2.memoryMb > 3500, `4 GB of memory: ${standard2.memoryMb} MB`);
  const disks = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { size: number; filesystem: string }[];
  assert.deepEqual(
    disks.map((d) => d.size).sort((a, b) => a - b),
    [512, 51200 - 512],
  );

  // Migrate to another region: new addresses there, written into the guest by the network helper.
  const oldIpv4 = node.ipv4[0];
  const migrated = await changeAndWait(cloud, id, 'migrate', { region: 'us-central' });
  t.diagnostic(`migrate to another region, to running: ${migrated.toFixed(1)} s`);
  ({ node, target } = await nodeAt());
  assert.equal(node.region, 'us-central');
  assert.notEqual(target.host, oldIpv4);
  assert.match(await sshRun(target, 'ip -4 addr show eth0'), new RegExp(`inet ${target.host.replaceAll('.', '\\.')}/`));
  assert.equal(await sshRun(target, 'cat /root/kept'), 'kept\n', 'the disk came along');

  // Rescue: the rescue system with the node's disks, reached at the node's address with the node's key.
  const rescued = await changeAndWait(cloud, id, 'rescue', {});
  t.diagnostic(`rescue, to running: ${rescued.toFixed(1)} s`);
  assert.equal(await sshRun(target, 'hostname'), 'rescue\n');
  assert.equal(
    await sshRun(target, 'mkdir -p /mnt/sda && mount /dev/vda /mnt/sda && cat /mnt/sda/root/kept && umount /mnt/sda'),
    'kept\n',
    "the node's disk is sda in the rescue system",
  );
  const rescueDisk = diskFiles(path.join(cloud.dataDir, COMPUTE_DIR), `rescue-${id}`).disk;
  assert.ok(fs.existsSync(rescueDisk));

  // A reboot leaves rescue: the node's own system again, the rescue disk gone.
  await changeAndWait(cloud, id, 'reboot', {});
  assert.equal(await sshRun(target, 'hostname'), 'changing\n');
  assert.ok(!fs.existsSync(rescueDisk), 'the rescue disk is removed when the node boots its own system');
  const events = (await cloud.api('GET', '/v4/account/events?page_size=100')).body.data as { action: string; status: string }[];
  for (const action of ['node_resize', 'node_migrate_datacenter']) {
    assert.ok(
      events.some((e) => e.action === action && e.status === 'finished'),
      `${action} finished: ${JSON.stringify(events.map((e) => [e.action, e.status]))}`,
    );
  }
}

// One cloud for all (its sampling grid scaled for the stats): a cloud and its namespace take seconds to
// make and remove, and only one bridge cloud runs at a time.
test(
  'bridge networking: nodes at their own addresses behind their firewalls, measured, changed',
  needs(...REAL_NODE_TOOLS, 'nft', 'ip'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const cloud = await startBridgeCloud(t, { CUMULO_TIME_SCALE: String(TIME_SCALE) });
    const key = await sshKeyPair(t);
    let node: BridgeNode | undefined;
    await t.test(
      'a node reached from the host at its own addresses, its firewall given while it provisions loaded before it runs and changed by a rules PUT, rebooted, its serial console over the WebSocket',
      async (t) => {
        node = await firewalledNode(t, cloud, key);
      },
    );
    await t.test(
      'its stats and transfer come from its machine, CPU, disk IO and traffic by family as the guest makes them',
      async (t) => {
        assert.ok(node, 'the node of the first step runs');
        await measuredNode(t, cloud, node);
      },
    );
    await t.test('deleted, its routes go with it', async () => {
      assert.ok(node, 'the node of the first step runs');
      await deletedWithItsRoutes(cloud, node);
    });
    await t.test(
      'a node resized (memory, vCPUs, the disk grown), migrated to another region (new addresses, reached there) and rescued (a rescue system with the node disk on sda, the node own keys), then booted back into its own system',
      async (t) => {
        await changedNode(t, cloud, key);
      },
    );
  },
);
