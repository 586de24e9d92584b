import type { MachineInterface, MachineSpec } from '../../src/compute/driver.ts';

/** A machine as bridge networking sees it: its key, region and interfaces (no disk: the network alone is under test). */
export function networkSpec(key: string, region: string, interfaces: MachineInterface[]): MachineSpec {
  return { key, region, memoryMb: 256, vcpus: 1, devices: [], rootDevice: 0, boot: 'image', interfaces };
}
