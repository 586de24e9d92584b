import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseAccelerator, probeBootSector, probeBoots } from '../../src/compute/qemu/kvm.ts';
import { needs } from '../helpers/system-tools.ts';

test('the probe is one boot sector with the BIOS signature', () => {
  const sector = probeBootSector();
  assert.equal(sector.length, 512);
  assert.deepEqual([...sector.subarray(510)], [0x55, 0xaa]);
});

test(
  'the probe boot sector prints on the serial console under TCG, and the accelerator is chosen with a reason',
  needs('qemu-system-x86_64'),
  async () => {
    const probe = await probeBoots('tcg', 10_000);
    assert.equal(probe.booted, true, probe.output);
    const choice = await chooseAccelerator();
    assert.ok(choice.accel === 'kvm' || choice.accel === 'tcg');
    assert.notEqual(choice.reason, '');
  },
);
