import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { formatAddress, parseAddress } from '../../net/cidr.ts';
import { nodesWithIds } from '../nodes/node.service.ts';
import type { IpAddressRow } from './ip-address.repository.ts';
import type { IpAddress } from './ip-address.schema.ts';
import { IPV6_GATEWAY, linkLocalOf } from './ipam.ts';

/**
 * The reverse DNS name a public IPv4 address has until one is set: `203-0-113-7.ip.<hostname>`, on
 * the installation's host name (config.hostname). Other addresses have none.
 */
export function defaultRdns(row: Pick<IpAddressRow, 'address' | 'type' | 'public'>, hostname: string): string | null {
  return row.type === 'ipv4' && row.public === 1 ? `${row.address.replaceAll('.', '-')}.ip.${hostname}` : null;
}

/** The labels of the nodes that hold the addresses shown, by node id: an address names its node. */
export type HolderLabels = ReadonlyMap<number, string>;

/** The labels of the nodes holding `rows`, read through the nodes group. */
export async function holderLabels(
  db: Kysely<Database>,
  ctx: Context,
  accountId: number,
  rows: readonly Pick<IpAddressRow, 'node_id'>[],
): Promise<HolderLabels> {
  const ids = [...new Set(rows.map((r) => r.node_id).filter((id) => id !== null))];
  return new Map((await nodesWithIds(db, ctx, accountId, ids)).map((n) => [n.id, n.label]));
}

/**
 * An address with the reverse DNS name stored for it, which is all an IPv6 address ever has. No
 * address is reserved apart from a node or reached through a VPC here; the node holding it is named.
 */
function storedView(row: IpAddressRow, labels: HolderLabels): IpAddress {
  const label = row.node_id === null ? undefined : labels.get(row.node_id);
  return {
    address: row.address,
    gateway: row.gateway,
    subnet_mask: row.subnet_mask,
    prefix: row.prefix,
    type: row.type as IpAddress['type'],
    public: row.public === 1,
    rdns: row.rdns,
    node_id: row.node_id,
    region: row.region,
    interface_id: null,
    vpc_nat_1_1: null,
    reserved: false,
    assigned_entity:
      row.node_id === null || label === undefined
        ? null
        : { id: row.node_id, type: 'node', label, url: `/v4/node/instances/${row.node_id}` },
  };
}

export function ipRowToIpAddress(row: IpAddressRow, hostname: string, labels: HolderLabels): IpAddress {
  return { ...storedView(row, labels), rdns: row.rdns ?? defaultRdns(row, hostname) };
}

/** A public IPv4 address, which always has a reverse DNS name. */
export function publicIpv4(row: IpAddressRow, hostname: string, labels: HolderLabels): IpAddress & { rdns: string } {
  const view = ipRowToIpAddress(row, hostname, labels);
  return { ...view, rdns: view.rdns ?? '' };
}

/** A SLAAC address; its gateway is the router's link-local address. */
export function slaacAddress(row: IpAddressRow, labels: HolderLabels): IpAddress & { gateway: string } {
  return { ...storedView(row, labels), gateway: row.gateway ?? IPV6_GATEWAY };
}

/** The link-local address a node has beside its SLAAC address; derived, never stored. */
export function linkLocalAddress(slaac: IpAddressRow, labels: HolderLabels): IpAddress & { gateway: string } {
  const value = parseAddress(slaac.address)?.value ?? 0n;
  return {
    ...storedView(slaac, labels),
    address: formatAddress(6, linkLocalOf(value)),
    gateway: IPV6_GATEWAY,
    public: false,
    rdns: null,
  };
}

/** An address as typed by a client, in the canonical form addresses are stored in; null when it is not one. */
export function canonicalAddress(text: string): string | null {
  const parsed = parseAddress(text);
  return parsed ? formatAddress(parsed.version, parsed.value) : null;
}
