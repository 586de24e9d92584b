import fs from 'node:fs';
import { PROBE_MARKER } from '../images/busybox-files.ts';
import { type Accelerator, startMachine } from './machine.ts';

/** Under KVM the probe guest is up in well under a second; under TCG it takes about 3 s here. */
const PROBE_TIMEOUT_MS = 10_000;

export type AcceleratorChoice = { accel: Accelerator; reason: string };

/**
 * KVM when a guest really runs under it, else TCG. /dev/kvm can be there while a guest hangs (no usable
 * nested virtualization), so the test image's kernel and initrd boot once in probe mode, which prints
 * PROBE_MARKER and powers off.
 */
export async function chooseAccelerator(boot: { kernel: string; initrd: string }): Promise<AcceleratorChoice> {
  try {
    fs.accessSync('/dev/kvm', fs.constants.R_OK | fs.constants.W_OK);
  } catch {
    return { accel: 'tcg', reason: '/dev/kvm is missing or not usable by this user' };
  }
  const machine = startMachine({
    accel: 'kvm',
    memoryMb: 128,
    kernel: boot.kernel,
    initrd: boot.initrd,
    append: 'console=ttyS0 quiet cumulo.probe',
  });
  const up = await machine.waitFor(PROBE_MARKER, PROBE_TIMEOUT_MS);
  machine.process.kill('SIGKILL');
  await machine.exited;
  if (up) return { accel: 'kvm', reason: 'a guest booted under KVM' };
  return { accel: 'tcg', reason: `no guest booted under KVM within ${PROBE_TIMEOUT_MS / 1000} s` };
}
