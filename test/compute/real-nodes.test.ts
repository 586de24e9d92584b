import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { verify } from 'unixcrypt';
import {
  createRealNode,
  forwardedSsh,
  REAL_NODE_ROOT_PASS,
  REAL_NODE_TOOLS,
  sshKeyPair,
  sshRun,
  startRealCloud,
  storeBusybox,
} from '../helpers/real-nodes.ts';
import { needs } from '../helpers/system-tools.ts';

const ROOT_PASS = REAL_NODE_ROOT_PASS;

/** Whether a QEMU process named `name` (its machine key) runs. */
async function qemuRunning(name: string): Promise<boolean> {
  const { stdout } = await promisify(execFile)('pgrep', ['-f', `qemu-system-x86_64 -name ${name} `]).catch(() => ({
    stdout: '',
  }));
  return stdout.trim() !== '';
}

test(
  'a node from the busybox image runs under QEMU with user networking: SSH with the key given at create, its hostname and password, reboot, rebuild, a guest poweroff the watchdog boots again, shutdown, delete',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'user' });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);

    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'node-one', publicKey: key.publicKey });
    const bootStarted = Date.now();
    await cloud.waitForStatus(id, 'running');
    t.diagnostic(`create to running: ${((Date.now() - bootStarted) / 1000).toFixed(1)} s`);

    const { target } = await forwardedSsh(cloud, id, key.privateKey);
    assert.equal((await cloud.cli('admin', 'nodes', 'ports', String(id))).trim(), `22\t${target.host}:${target.port}`);

    assert.equal(await sshRun(target, 'hostname'), 'node-one\n');
    const shadowHash = (await sshRun(target, 'grep ^root: /etc/shadow')).split(':')[1] ?? '';
    assert.ok(verify(ROOT_PASS, shadowHash), `root's hash in /etc/shadow is not of the root_pass given: ${shadowHash}`);
    const publicIp = (await cloud.api('GET', `/v4/node/instances/${id}`)).body.ipv4[0];
    assert.match(await sshRun(target, 'ip -4 addr show eth0'), new RegExp(`inet ${publicIp.replaceAll('.', '\\.')}/24`));

    // Reboot: the guest really goes down and comes up (a file in /run, a tmpfs, is gone).
    await sshRun(target, 'touch /run/before-reboot');
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/reboot`, {})).status, 200);
    await cloud.waitForStatus(id, 'running');
    assert.equal(await sshRun(target, 'ls /run/before-reboot 2>/dev/null || echo gone'), 'gone\n');

    // Rebuild: a new disk from the image, with the new password and key; what was on the old one is gone.
    const other = await sshKeyPair(t);
    await sshRun(target, 'touch /root/before-rebuild');
    const rebuilt = await cloud.api('POST', `/v4/node/instances/${id}/rebuild`, {
      image: 'node/busybox',
      root_pass: `${ROOT_PASS}-2`,
      authorized_keys: [other.publicKey],
    });
    assert.equal(rebuilt.status, 200, JSON.stringify(rebuilt.body));
    await cloud.waitForStatus(id, 'running');
    await assert.rejects(sshRun(target, 'true'), 'the old key no longer gets in');
    const rebuiltTarget = { ...target, privateKey: other.privateKey };
    assert.equal(await sshRun(rebuiltTarget, 'ls /root/before-rebuild 2>/dev/null || echo gone'), 'gone\n');
    const rebuiltHash = (await sshRun(rebuiltTarget, 'grep ^root: /etc/shadow')).split(':')[1] ?? '';
    assert.ok(verify(`${ROOT_PASS}-2`, rebuiltHash), 'the rebuild wrote the new root_pass');
    const rebuiltDisks = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { id: number }[];
    const diskFolders = fs.readdirSync(path.join(cloud.dataDir, 'compute', 'disks')).sort();
    assert.deepEqual(diskFolders, rebuiltDisks.map((d) => `disk-${d.id}`).sort(), 'the old disks files are gone');
    await sshRun(rebuiltTarget, 'true');
    target.privateKey = other.privateKey;

    // A guest that powers itself off goes offline, and the shutdown watchdog boots it again.
    await sshRun(target, 'poweroff').catch(() => {});
    await cloud.waitForStatus(id, 'booting', 60_000).catch(() => {});
    await cloud.waitForStatus(id, 'running');
    const events = await cloud.api('GET', '/v4/account/events?page_size=100');
    const actions = events.body.data
      .filter((e: { entity: { id: number } | null }) => e.entity?.id === id)
      .map((e: { action: string }) => e.action);
    assert.ok(actions.includes('lassie_reboot'), `events of the node: ${actions.join(', ')}`);
    assert.equal(await sshRun(target, 'hostname'), 'node-one\n');

    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/shutdown`, {})).status, 200);
    await cloud.waitForStatus(id, 'offline', 90_000);
    await assert.rejects(sshRun(target, 'true', 3));

    const disks = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { id: number }[];
    assert.equal(disks.length, 2);
    const diskDirs = disks.map((d) => path.join(cloud.dataDir, 'compute', 'disks', `disk-${d.id}`));
    for (const dir of diskDirs) assert.ok(fs.existsSync(dir), `${dir} is missing`);
    assert.equal((await cloud.api('DELETE', `/v4/node/instances/${id}`)).status, 200);
    const deadline = Date.now() + 30_000;
    while (diskDirs.some((dir) => fs.existsSync(dir)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const dir of diskDirs) assert.ok(!fs.existsSync(dir), `${dir} outlived its node`);
    assert.ok(!fs.existsSync(path.join(cloud.dataDir, 'compute', 'machines', `node-${id}`)));
  },
);

test(
  'machines outlive the server: a kill -9 during a boot and another while running lose neither the boot nor the node, which the next server adopts and still drives; a node deleted while it is built leaves nothing',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'user' });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);
    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'survivor', publicKey: key.publicKey });
    // The provisioning job is under way (or not yet claimed) when the server dies.
    await cloud.restart();
    await cloud.waitForStatus(id, 'running');

    const { ports, target } = await forwardedSsh(cloud, id, key.privateKey);
    const bootId = await sshRun(target, 'cat /proc/sys/kernel/random/boot_id');

    await cloud.restart();
    assert.equal((await cloud.api('GET', `/v4/node/instances/${id}`)).body.status, 'running');
    assert.equal(await sshRun(target, 'cat /proc/sys/kernel/random/boot_id'), bootId, 'the guest was restarted with the server');
    assert.deepEqual((await cloud.api('GET', `/admin/nodes/${id}/ports`)).body.ports, ports);

    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/shutdown`, {})).status, 200);
    await cloud.waitForStatus(id, 'offline', 90_000);
    await assert.rejects(sshRun(target, 'true', 3));

    // A node deleted while it is being built leaves no machine and no file, whichever finishes first.
    const doomed = await createRealNode(cloud, { image: 'node/busybox', label: 'doomed', publicKey: key.publicKey });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await cloud.api('DELETE', `/v4/node/instances/${doomed}`)).status, 200);
    const machineDir = path.join(cloud.dataDir, 'compute', 'machines', `node-${doomed}`);
    const kept = ((await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { id: number }[])
      .map((d) => `disk-${d.id}`)
      .sort();
    const diskFolders = () => fs.readdirSync(path.join(cloud.dataDir, 'compute', 'disks')).sort();
    // The delete's work removes the machine, then the disks' files: each may still be under way.
    const deadline = Date.now() + 60_000;
    while (
      (fs.existsSync(machineDir) || (await qemuRunning(`node-${doomed}`)) || diskFolders().length !== kept.length) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(await qemuRunning(`node-${doomed}`), false, 'a machine outlived its deleted node');
    assert.ok(!fs.existsSync(machineDir));
    assert.deepEqual(diskFolders(), kept, 'only the first node has disk files');
  },
);
