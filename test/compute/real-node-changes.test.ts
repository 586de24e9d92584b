import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { diskFiles } from '../../src/compute/qemu/data-layout.ts';
import { COMPUTE_DIR } from '../../src/data-dir.ts';
import { createRealNode, REAL_NODE_TOOLS, type RealCloud, sshKeyPair, sshRun, startBridgeCloud } from '../helpers/real-nodes.ts';
import { needs } from '../helpers/system-tools.ts';

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

test(
  'a real node resized (memory, vCPUs, the disk grown), migrated to another region (new addresses, reached there) and rescued (a rescue system with the node disk on sda, the node own keys), then booted back into its own system',
  needs(...REAL_NODE_TOOLS, 'nft', 'ip'),
  async (t) => {
    if (process.getuid?.() !== 0) return t.skip('bridge networking needs root');
    const cloud = await startBridgeCloud(t);
    const key = await sshKeyPair(t);
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
  },
);
