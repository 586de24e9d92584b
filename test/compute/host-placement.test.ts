import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { FsBlobStore } from '../../src/blob/fs-blob-store.ts';
import { chooseHost, type HostReport, reportHost } from '../../src/compute/agents/host-registry.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { BLOBS_DIR } from '../../src/data-dir.ts';
import { storePublicImage } from '../../src/domain/images/public-image-data.ts';
import { buildTestApp, DIALECTS, type TestApp, tempDir } from '../helpers/app.ts';
import { ProcessMachines } from '../helpers/process-machines.ts';

const NOW = 1_000_000;
const GB = 1024;

function host(name: string, spec: Partial<HostReport>): HostReport {
  return {
    name,
    regions: null,
    memoryTotalMb: 4096,
    memoryFreeMb: 4096,
    diskFreeMb: 100_000,
    diskCapacityMb: 100_000,
    machines: {},
    startedAt: 0,
    heartbeatAt: NOW,
    ...spec,
  };
}

const need = {
  region: 'us-east',
  memoryMb: 1024,
  diskMb: 25_600,
  usedMb: new Map<string, number>(),
  diskPromisedMb: new Map<string, number>(),
  diskOvercommit: 1,
  nowMs: NOW,
  offlineMs: 3000,
};

test('placement: a live host serving the region with room, the one with the most memory left', () => {
  const placed = (hosts: HostReport[], extra: Partial<typeof need> = {}) => {
    const chosen = chooseHost(hosts, { ...need, ...extra });
    return 'host' in chosen ? chosen.host.name : chosen;
  };
  assert.equal(placed([host('a', { memoryFreeMb: 2048 }), host('b', {})]), 'b');
  // Nodes placed but not yet booted count against a host, even when its last report says otherwise.
  assert.equal(placed([host('a', {}), host('b', { memoryTotalMb: 2048 })], { usedMb: new Map([['a', 3584]]) }), 'b');
  assert.equal(placed([host('a', { heartbeatAt: NOW - 3001 }), host('b', { memoryFreeMb: 1024 })]), 'b');
  assert.equal(placed([host('a', { regions: ['eu-west'] }), host('b', { regions: ['us-east'], memoryFreeMb: 1024 })]), 'b');
  assert.equal(placed([host('a', {}), host('b', {})]), 'a', 'ties go by name');

  assert.deepEqual(placed([host('a', { regions: ['eu-west'] }), host('b', { heartbeatAt: 0 })]), {
    reason: 'No live compute host serves region us-east (1 of 2 hosts live)',
    lacking: 'region',
  });
  const full = placed([host('a', { memoryFreeMb: 512 }), host('b', { diskCapacityMb: 1000 })]);
  assert.equal(typeof full === 'object' && full.lacking, 'room');
  assert.match(
    typeof full === 'object' ? full.reason : '',
    /needs 1024 MB of memory and 25600 MB of disk; the most a host has free is 4096 MB of memory and 100000 MB of disk/,
  );
});

test('with agents, a node is placed by the reports as they are when it is created: an agent that reported a moment ago takes it', async (t) => {
  const app = await buildTestApp(t, { dialect: 'postgres', config: { compute: 'agents' } });
  const db = app.runtime.ctx.db;
  // The image's files are there (no agent runs here to boot them).
  const files = tempDir(t);
  const image = { disk: path.join(files, 'disk'), kernel: path.join(files, 'kernel'), initrd: path.join(files, 'initrd') };
  for (const file of Object.values(image)) fs.writeFileSync(file, 'x');
  await storePublicImage(new FsBlobStore(path.join(app.dataDir, BLOBS_DIR)), 'busybox', image);
  // The API server read the reports when it started (none then); this one comes after that read.
  await reportHost(db, { ...host('fresh', {}), startedAt: Date.now(), heartbeatAt: Date.now() });
  const res = await app.request('POST', '/v4/node/instances', {
    body: { type: 'g6-nanode-1', region: 'us-east', image: 'node/busybox', root_pass: 'correct-Horse-battery-9' },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const placed = await db.selectFrom('nodes').select('host').where('id', '=', res.body.id).executeTakeFirst();
  assert.equal(placed?.host, 'fresh');

  // A host without the room for the type's disk refuses the node at `type`, from its report as it is.
  await reportHost(db, { ...host('fresh', { diskCapacityMb: 1000 }), startedAt: Date.now(), heartbeatAt: Date.now() });
  const full = await app.request('POST', '/v4/node/instances', {
    body: { type: 'g6-nanode-1', region: 'us-east', image: 'node/busybox', root_pass: 'correct-Horse-battery-9' },
  });
  assert.equal(full.status, 400);
  assert.equal(full.body.errors[0].field, 'type');
  assert.match(full.body.errors[0].reason, /25600 MB of disk/);
});

test('placement counts the disks placed on a host at their full sizes against its storage, times the over-commit ratio', () => {
  const placed = (hosts: HostReport[], extra: Partial<typeof need> = {}) => {
    const chosen = chooseHost(hosts, { ...need, diskMb: 50 * GB, ...extra });
    return 'host' in chosen ? chosen.host.name : chosen.lacking;
  };
  // 76 GB of storage with 50 GB of (sparse, nearly empty) disks on it: its free space says nothing of them.
  const small = host('a', { diskCapacityMb: 76 * GB, diskFreeMb: 75 * GB });
  const promised = new Map([['a', 50 * GB]]);
  assert.equal(placed([small]), 'a');
  assert.equal(placed([small], { diskPromisedMb: promised }), 'room');
  assert.equal(placed([small], { diskPromisedMb: promised, diskOvercommit: 2 }), 'a');
  // An agent that does not report its storage's size is held to its free space.
  assert.equal(placed([host('a', { diskCapacityMb: null, diskFreeMb: 49 * GB })]), 'room');
  assert.equal(placed([host('a', { diskCapacityMb: null, diskFreeMb: 51 * GB })], { diskPromisedMb: promised }), 'a');
});

test('CUMULO_DISK_OVERCOMMIT: 1 unless set, a positive ratio', () => {
  assert.equal(loadConfig({}).diskOvercommit, 1);
  assert.equal(loadConfig({ CUMULO_DISK_OVERCOMMIT: '1.5' }).diskOvercommit, 1.5);
  for (const bad of ['0', '-1', 'lots', '1000']) {
    assert.throws(
      () => loadConfig({ CUMULO_DISK_OVERCOMMIT: bad }),
      (e) => e instanceof ConfigError && /CUMULO_DISK_OVERCOMMIT/.test(e.message),
    );
  }
});

/** A host whose storage for disks holds `capacityMb`, however little its disks have written. */
class FixedStorage extends ProcessMachines {
  #capacityMb: number;
  constructor(capacityMb: number) {
    super();
    this.#capacityMb = capacityMb;
  }
  override async diskCapacityMb(): Promise<number> {
    return this.#capacityMb;
  }
}

/** Stands in for a built busybox image: the API checks that the files are there, not what they hold. */
async function storeBusybox(t: Parameters<typeof tempDir>[0], app: TestApp): Promise<void> {
  const files = tempDir(t);
  const image = { disk: path.join(files, 'disk'), kernel: path.join(files, 'kernel'), initrd: path.join(files, 'initrd') };
  for (const file of Object.values(image)) fs.writeFileSync(file, 'x');
  await storePublicImage(app.runtime.ctx.blobs, 'busybox', image);
}

const busybox = (type: string, extra: Record<string, unknown> = {}) => ({
  type,
  region: 'us-east',
  image: 'node/busybox',
  root_pass: 'correct-Horse-battery-9',
  ...extra,
});

async function promisedMb(app: TestApp): Promise<number> {
  const rows = await app.runtime.ctx.db.selectFrom('disks').select('size').execute();
  return rows.reduce((sum, r) => sum + Number(r.size), 0);
}

for (const dialect of DIALECTS) {
  describe(`the host's storage for disks [${dialect}]`, () => {
    const realNodes = (t: Parameters<typeof tempDir>[0], capacityMb: number, overcommit = 1) =>
      buildTestApp(t, {
        dialect,
        config: { compute: 'qemu', computeMemoryMb: 1_000_000, diskOvercommit: overcommit },
        compute: new FixedStorage(capacityMb),
      });

    test('counts every disk at its size: on 76 GB two 50 GB nodes do not fit, and a disk past it is refused on size', async (t) => {
      const app = await realNodes(t, 76 * GB);
      await storeBusybox(t, app);
      const first = await app.request('POST', '/v4/node/instances', { body: busybox('g6-standard-1', { label: 'first' }) });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const second = await app.request('POST', '/v4/node/instances', { body: busybox('g6-standard-1', { label: 'second' }) });
      assert.equal(second.status, 400);
      assert.equal(second.body.errors[0].field, 'type');
      assert.match(
        second.body.errors[0].reason,
        /Not enough free storage on the host for 51200 MB of disks: its disks take 51200 MB of the 77824 MB it has for them/,
      );
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, 1);
      assert.equal(await promisedMb(app), 51200);

      // An empty node promises no disk; a disk made on it is counted with the others.
      const empty = await app.request('POST', '/v4/node/instances', { body: { type: 'g6-standard-1', region: 'us-east' } });
      assert.equal(empty.status, 200, JSON.stringify(empty.body));
      const tooBig = await app.request('POST', `/v4/node/instances/${empty.body.id}/disks`, { body: { size: 30_000 } });
      assert.equal(tooBig.status, 400);
      assert.equal(tooBig.body.errors[0].field, 'size');
      assert.equal(await promisedMb(app), 51200);
      const fits = await app.request('POST', `/v4/node/instances/${empty.body.id}/disks`, { body: { size: 20_000 } });
      assert.equal(fits.status, 200, JSON.stringify(fits.body));

      // Growing it past the room is refused too (its job, which would write it, is not run here).
      await app.runtime.ctx.db.updateTable('disks').set({ status: 'ready' }).execute();
      await app.runtime.ctx.db.updateTable('nodes').set({ busy: null }).where('id', '=', empty.body.id).execute();
      const grown = await app.request('POST', `/v4/node/instances/${empty.body.id}/disks/${fits.body.id}/resize`, {
        body: { size: 30_000 },
      });
      assert.equal(grown.status, 400);
      assert.equal(grown.body.errors[0].field, 'size');
      assert.equal(await promisedMb(app), 71200);
    });

    test('the over-commit ratio lets the sizes add up to that many times the storage', async (t) => {
      const app = await realNodes(t, 76 * GB, 2);
      await storeBusybox(t, app);
      for (const label of ['first', 'second', 'third']) {
        const res = await app.request('POST', '/v4/node/instances', { body: busybox('g6-standard-1', { label }) });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      const fourth = await app.request('POST', '/v4/node/instances', { body: busybox('g6-standard-1', { label: 'fourth' }) });
      assert.equal(fourth.status, 400);
      assert.match(fourth.body.errors[0].reason, /its disks take 153600 MB of the 155648 MB it has for them/);
    });

    test('twenty creates at once take turns: the storage is never promised past its size', async (t) => {
      const app = await realNodes(t, 5 * 25_600);
      await storeBusybox(t, app);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.request('POST', '/v4/node/instances', { body: busybox('g6-nanode-1', { label: `node-${i}` }) }),
        ),
      );
      assert.equal(replies.filter((r) => r.status === 200).length, 5, JSON.stringify(replies.map((r) => r.body)));
      const refusals = replies.filter((r) => r.status !== 200);
      assert.ok(
        refusals.every((r) => r.status === 400 && r.body.errors[0].field === 'type'),
        JSON.stringify(refusals.map((r) => [r.status, r.body])),
      );
      assert.equal(await promisedMb(app), 5 * 25_600);
    });
  });
}

test('with agents, the disks placed on a host count at their sizes against the storage it reports', async (t) => {
  const app = await buildTestApp(t, { dialect: 'postgres', config: { compute: 'agents' } });
  await storeBusybox(t, app);
  const db = app.runtime.ctx.db;
  // Sparse disks: its free space would take three 50 GB nodes.
  const report = {
    ...host('small', { diskCapacityMb: 76 * GB, diskFreeMb: 75 * GB, memoryTotalMb: 65_536, memoryFreeMb: 65_536 }),
  };
  await reportHost(db, { ...report, startedAt: Date.now(), heartbeatAt: Date.now() });
  const first = await app.request('POST', '/v4/node/instances', { body: busybox('g6-standard-1', { label: 'first' }) });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const second = await app.request('POST', '/v4/node/instances', { body: busybox('g6-standard-1', { label: 'second' }) });
  assert.equal(second.status, 400);
  assert.equal(second.body.errors[0].field, 'type');
  assert.match(
    second.body.errors[0].reason,
    /51200 MB of disk; the most a host has free is \d+ MB of memory and 26624 MB of disk/,
  );

  const empty = await app.request('POST', '/v4/node/instances', { body: { type: 'g6-standard-1', region: 'us-east' } });
  assert.equal(empty.status, 200, JSON.stringify(empty.body));
  const tooBig = await app.request('POST', `/v4/node/instances/${empty.body.id}/disks`, { body: { size: 30_000 } });
  assert.equal(tooBig.status, 400);
  assert.equal(tooBig.body.errors[0].field, 'size');
  assert.match(tooBig.body.errors[0].reason, /on the node's host small for 30000 MB of disks: 26624 MB is left/);
  assert.equal(await promisedMb(app), 51200);
});
