import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRealNode, REAL_NODE_TOOLS, type RealCloud, sshKeyPair, sshRun, startBridgeCloud } from '../helpers/real-nodes.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

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
    const stats = res.body as NodeStats;
    if (ready(stats)) return stats;
    if (Date.now() > deadline) assert.fail(`the stats never showed it: ${JSON.stringify(stats)}`);
    await sleep(300);
  }
}

test(
  'a real node in bridge networking: its stats and transfer come from its machine, CPU, disk IO and traffic by family as the guest makes them',
  needs(...REAL_NODE_TOOLS, 'nft', 'ip'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const cloud = await startBridgeCloud(t, { CUMULO_TIME_SCALE: String(TIME_SCALE) });
    const key = await sshKeyPair(t);
    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'measured', publicKey: key.publicKey });
    await cloud.waitForStatus(id, 'running');
    const node = (await cloud.api('GET', `/v4/node/instances/${id}`)).body;
    const target = { host: node.ipv4[0] as string, port: 22, privateKey: key.privateKey };
    const ipv6 = (node.ipv6 as string).split('/')[0] as string;

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
  },
);
