import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FsBlobStore } from '../../src/blob/fs-blob-store.ts';
import { chooseHost, type HostReport, reportHost } from '../../src/compute/agents/host-registry.ts';
import { BLOBS_DIR } from '../../src/data-dir.ts';
import { storePublicImage } from '../../src/domain/images/public-image-data.ts';
import { buildTestApp, tempDir } from '../helpers/app.ts';

const NOW = 1_000_000;

function host(name: string, spec: Partial<HostReport>): HostReport {
  return {
    name,
    regions: null,
    memoryTotalMb: 4096,
    memoryFreeMb: 4096,
    diskFreeMb: 100_000,
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
  const full = placed([host('a', { memoryFreeMb: 512 }), host('b', { diskFreeMb: 1000 })]);
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
  await reportHost(db, { ...host('fresh', { diskFreeMb: 1000 }), startedAt: Date.now(), heartbeatAt: Date.now() });
  const full = await app.request('POST', '/v4/node/instances', {
    body: { type: 'g6-nanode-1', region: 'us-east', image: 'node/busybox', root_pass: 'correct-Horse-battery-9' },
  });
  assert.equal(full.status, 400);
  assert.equal(full.body.errors[0].field, 'type');
  assert.match(full.body.errors[0].reason, /25600 MB of disk/);
});
