import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseHost, type HostReport } from '../../src/compute/agents/host-registry.ts';

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
