import net from 'node:net';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import type { RegionDataT } from '../catalog/catalog.ts';
import { attachVlan } from '../networking/node-addresses.service.ts';
import type { Interface, InterfaceBody } from './configs/config.schema.ts';

const VLAN_LABEL = /^[a-zA-Z0-9-]{1,64}$/;
export const VLAN_CAPABILITY = 'Vlans';

function blank(v: string | null | undefined): boolean {
  return v === undefined || v === null || v === '';
}

/** `10.0.0.1/24`: an IPv4 address with a prefix length. */
function isIpamAddress(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  return rest.length === 0 && net.isIPv4(address ?? '') && /^\d{1,2}$/.test(prefix ?? '') && Number(prefix) <= 32;
}

/**
 * Checks a config's interfaces (eth0, eth1, eth2 by position) against the region and returns them
 * as stored: at most one public interface, which carries no label or address and may be primary
 * (the only one that can, with no VPC offered); VLAN interfaces need
 * a region with VLANs, a label, and an optional `address/prefix`. Every problem is reported at once.
 */
export function checkInterfaces(list: readonly InterfaceBody[], region: RegionDataT, field = 'interfaces'): Interface[] {
  const problems: ErrorItem[] = [];
  const labels = new Set<string>();
  let publics = 0;
  list.forEach((iface, i) => {
    const at = `${field}[${i}]`;
    if (iface.primary === true && iface.purpose !== 'public') {
      problems.push({ field: `${at}.primary`, reason: 'Only a public interface can be primary' });
    }
    if (iface.purpose === 'public') {
      publics += 1;
      if (publics > 1) problems.push({ field: `${at}.purpose`, reason: 'Only one interface may be public' });
      if (!blank(iface.label)) problems.push({ field: `${at}.label`, reason: 'A public interface takes no label' });
      if (!blank(iface.ipam_address))
        problems.push({ field: `${at}.ipam_address`, reason: 'A public interface takes no ipam_address' });
      return;
    }
    if (!region.capabilities.includes(VLAN_CAPABILITY)) {
      problems.push({ field: `${at}.purpose`, reason: `Region ${region.id} does not offer VLANs` });
    }
    const label = iface.label ?? '';
    if (!VLAN_LABEL.test(label)) {
      problems.push({ field: `${at}.label`, reason: 'A VLAN interface needs a label of 1-64 letters, digits and -' });
    } else if (labels.has(label)) {
      problems.push({ field: `${at}.label`, reason: `VLAN ${label} is already attached to another interface` });
    }
    labels.add(label);
    if (!blank(iface.ipam_address) && !isIpamAddress(iface.ipam_address ?? '')) {
      problems.push({ field: `${at}.ipam_address`, reason: 'Must be an IPv4 address with a prefix length, such as 10.0.0.1/24' });
    }
  });
  if (problems.length) throw fail.invalid(problems);
  return list.map((iface) =>
    iface.purpose === 'public'
      ? { purpose: 'public', label: null, ipam_address: null, ...(iface.primary === true ? { primary: true } : {}) }
      : {
          purpose: 'vlan',
          label: iface.label ?? null,
          ipam_address: blank(iface.ipam_address) ? null : (iface.ipam_address ?? null),
        },
  );
}

/** Creates the account's VLANs the interfaces attach to, or reuses those that exist (by region and label). */
export async function attachVlans(
  db: Kysely<Database>,
  accountId: number,
  region: string,
  interfaces: readonly Interface[],
  now: string,
): Promise<void> {
  for (const iface of interfaces) {
    if (iface.purpose === 'vlan' && iface.label) await attachVlan(db, { accountId, region, label: iface.label, created: now });
  }
}
