import type { Kysely } from 'kysely';
import type { MachineInterface, MachineSpec, NetworkSettings } from '../../../compute/driver.ts';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { parseAddress } from '../../../net/cidr.ts';
import { addressesOfNodes } from '../../networking/node-addresses.service.ts';
import type { ConfigRow } from '../configs/config.repository.ts';
import type { Interface } from '../configs/config.schema.ts';
import type { NodeRow } from '../node.repository.ts';
import { diskKey, machineKey, rescueDiskKey, vlanKey } from './compute-keys.ts';

const DEVICES = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
/** Configs that boot the disk's own boot sector rather than the kernel deployed with the image. */
const DISK_BOOT_KERNELS = new Set(['node/direct-disk']);

/** A SLAAC address's interface id is the MAC's EUI-64 form: drop ff:fe and flip the universal/local bit back. */
function macOfSlaac(address: string): string | null {
  const parsed = parseAddress(address);
  if (parsed?.version !== 6) return null;
  const id = parsed.value & ((1n << 64n) - 1n);
  if (((id >> 24n) & 0xffffn) !== 0xfffen) return null;
  const bytes = [
    Number((id >> 56n) & 0xffn) ^ 0x02,
    Number((id >> 48n) & 0xffn),
    Number((id >> 40n) & 0xffn),
    Number((id >> 16n) & 0xffn),
    Number((id >> 8n) & 0xffn),
    Number(id & 0xffn),
  ];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** A locally administered MAC for an interface with no SLAAC address, fixed by the node and the interface. */
function derivedMac(nodeId: number, index: number): string {
  const bytes = [0xf2, 0x3d, (nodeId >> 16) & 0xff, (nodeId >> 8) & 0xff, nodeId & 0xff, index & 0xff];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** What the guest configures on its public interface: the node's IPv4 addresses (public first) and its SLAAC address. */
async function publicNetwork(
  db: Kysely<Database>,
  node: NodeRow,
  name: string,
): Promise<{ settings: NetworkSettings; mac: string }> {
  const rows = await addressesOfNodes(db, node.account_id, [node.id]);
  const ipv4 = rows.filter((r) => r.type === 'ipv4');
  const slaac = rows.find((r) => r.type === 'ipv6');
  const gateway4 = ipv4.find((r) => r.gateway !== null)?.gateway ?? undefined;
  const settings: NetworkSettings = {
    interface: name,
    ipv4: ipv4.map((r) => `${r.address}/${r.prefix}`),
    ...(gateway4 !== undefined && { gateway4 }),
    ...(slaac && { ipv6: `${slaac.address}/${slaac.prefix}`, ...(slaac.gateway !== null && { gateway6: slaac.gateway }) }),
  };
  return { settings, mac: (slaac && macOfSlaac(slaac.address)) ?? derivedMac(node.id, 0) };
}

/** The machine's interfaces in the config's order (a config without interfaces has the public one), with what the guest is given on each. */
export async function machineInterfaces(
  db: Kysely<Database>,
  node: NodeRow,
  config: ConfigRow | null,
): Promise<MachineInterface[]> {
  const listed = config ? (JSON.parse(config.interfaces) as Interface[]) : [];
  const interfaces: readonly Pick<Interface, 'purpose' | 'label' | 'ipam_address'>[] =
    listed.length > 0 ? listed : [{ purpose: 'public', label: null, ipam_address: null }];
  const result: MachineInterface[] = [];
  for (const [i, iface] of interfaces.entries()) {
    const name = `eth${i}`;
    if (iface.purpose === 'public') {
      const { settings, mac } = await publicNetwork(db, node, name);
      result.push({ mac, purpose: 'public', addresses: settings });
    } else {
      const ipv4 = iface.ipam_address ? [iface.ipam_address] : [];
      result.push({
        mac: derivedMac(node.id, i),
        purpose: 'vlan',
        ...(iface.label && { vlan: vlanKey(node.account_id, iface.label) }),
        addresses: { interface: name, ipv4 },
      });
    }
  }
  return result;
}

/** The machine a node runs when booted with `config`: its devices, memory (the config's limit, else the type's), vCPUs and interfaces. */
export async function machineSpecOf(db: Kysely<Database>, ctx: Context, node: NodeRow, config: ConfigRow): Promise<MachineSpec> {
  const type = ctx.catalog.type(node.type);
  const typeMemory = type?.memory ?? 1024;
  const devices = JSON.parse(config.devices) as Record<string, { disk_id: number | null } | null>;
  const rootName = /^\/dev\/(sd[a-h])$/.exec(config.root_device)?.[1] ?? 'sda';
  return {
    key: machineKey(node.id),
    region: node.region,
    memoryMb: config.memory_limit > 0 ? Math.min(config.memory_limit, typeMemory) : typeMemory,
    vcpus: type?.vcpus ?? 1,
    devices: DEVICES.map((name) => {
      const diskId = devices[name]?.disk_id;
      return typeof diskId === 'number' ? diskKey(diskId) : null;
    }),
    rootDevice: DEVICES.indexOf(rootName as (typeof DEVICES)[number]),
    boot: DISK_BOOT_KERNELS.has(config.kernel) ? 'disk' : 'image',
    interfaces: await machineInterfaces(db, node, config),
  };
}

/**
 * The machine a node's rescue system runs as: the node's disks on `sda`..`sdg` as the rescue asked,
 * the rescue disk on `sdh` as its root (booted with its image's kernel), the node's type and interfaces.
 */
export async function rescueSpecOf(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRow,
  devices: Readonly<Partial<Record<string, number>>>,
): Promise<MachineSpec> {
  const type = ctx.catalog.type(node.type);
  const rescueDevice = DEVICES.length - 1;
  return {
    key: machineKey(node.id),
    region: node.region,
    memoryMb: type?.memory ?? 1024,
    vcpus: type?.vcpus ?? 1,
    devices: DEVICES.map((name, i) => {
      if (i === rescueDevice) return rescueDiskKey(node.id);
      const diskId = devices[name];
      return typeof diskId === 'number' ? diskKey(diskId) : null;
    }),
    rootDevice: rescueDevice,
    boot: 'image',
    interfaces: await machineInterfaces(db, node, null),
  };
}
