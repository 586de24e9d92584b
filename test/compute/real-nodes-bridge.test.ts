import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { verify } from 'unixcrypt';
import { hostVethName, machineTable } from '../../src/compute/qemu/bridge-names.ts';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { COMPUTE_DIR } from '../../src/data-dir.ts';
import { connectConsole } from '../helpers/console-client.ts';
import {
  createRealNode,
  REAL_NODE_ROOT_PASS,
  REAL_NODE_TOOLS,
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
function tcpProbe(address: string, port: number, timeoutMs = 2000): Promise<'connected' | 'refused' | 'timeout'> {
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

test(
  'a node in bridge networking: reached from the host at its own addresses, its firewall given while it provisions loaded before it runs and changed by a rules PUT, rebooted, its serial console over the WebSocket, and its routes gone with it',
  needs(...REAL_NODE_TOOLS, 'nft', 'ip'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const cloud = await startBridgeCloud(t);
    const { netns } = cloud;
    const key = await sshKeyPair(t);

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

    assert.equal((await cloud.api('DELETE', `/v4/node/instances/${id}`)).status, 200);
    const deadline = Date.now() + 30_000;
    while ((await routedInto(netns, ipv4)) && Date.now() < deadline) await sleep(200);
    assert.ok(!(await routedInto(netns, ipv4)), `the host route to ${ipv4} outlived the node`);
    assert.ok(!(await routedInto(netns, ipv6)), `the host route to ${ipv6} outlived the node`);
  },
);
