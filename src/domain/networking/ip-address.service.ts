import { formatAddress, parseAddress } from '../../net/cidr.ts';
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

/** An address with the reverse DNS name stored for it, which is all an IPv6 address ever has. */
function storedView(row: IpAddressRow): IpAddress {
  return {
    address: row.address,
    gateway: row.gateway,
    subnet_mask: row.subnet_mask,
    prefix: row.prefix,
    type: row.type as IpAddress['type'],
    public: row.public === 1,
    rdns: row.rdns,
    node_id: row.node_id ?? 0,
    region: row.region,
  };
}

export function ipRowToIpAddress(row: IpAddressRow, hostname: string): IpAddress {
  return { ...storedView(row), rdns: row.rdns ?? defaultRdns(row, hostname) };
}

/** A public IPv4 address, which always has a reverse DNS name. */
export function publicIpv4(row: IpAddressRow, hostname: string): IpAddress & { rdns: string } {
  const view = ipRowToIpAddress(row, hostname);
  return { ...view, rdns: view.rdns ?? '' };
}

/** A SLAAC address; its gateway is the router's link-local address. */
export function slaacAddress(row: IpAddressRow): IpAddress & { gateway: string } {
  return { ...storedView(row), gateway: row.gateway ?? IPV6_GATEWAY };
}

/** The link-local address a node has beside its SLAAC address; derived, never stored. */
export function linkLocalAddress(slaac: IpAddressRow): IpAddress & { gateway: string } {
  const value = parseAddress(slaac.address)?.value ?? 0n;
  return {
    ...storedView(slaac),
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
