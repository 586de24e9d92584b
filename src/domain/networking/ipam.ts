import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { lockName } from '../../db/row-locks.ts';
import { fail } from '../../errors.ts';
import { type Block, formatAddress, parseCidr, prefixMask } from '../../net/cidr.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import type { RegionDataT } from '../catalog/catalog.ts';
import {
  claimNextOrdinals,
  findFirstFreeOrdinal,
  findOrdinalPastEnd,
  type IpAddressRow,
  insertAddressesIfFree,
  type PoolKey,
} from './ip-address.repository.ts';

/**
 * Address management. Each region has three pools: public IPv4 (the catalog's `ipv4_pool`, cut
 * into /24 subnets), private IPv4 (192.168.128.0/17, one private network per region) and SLAAC
 * IPv6 (one /64 of the catalog's `ipv6_prefix`). Every address of a pool has an ordinal, its index
 * among the pool's usable addresses; allocation takes the next ordinal after the highest in use (one
 * index probe), and only once the pool's end is reached searches for a gap left by a release.
 */

export type PoolName = 'public-ipv4' | 'private-ipv4' | 'slaac';

export interface AddressPlan {
  address: string;
  prefix: number;
  gateway: string | null;
  subnet_mask: string;
}

export interface Pool {
  key: PoolKey;
  /** How many addresses the pool holds; ordinals run from 0 to capacity - 1. */
  capacity: number;
  at(ordinal: number): AddressPlan;
}

export const PRIVATE_IPV4_NETWORK = '192.168.128.0/17';
/** The gateway of every SLAAC and link-local address. */
export const IPV6_GATEWAY = 'fe80::1';
/** Host parts look like EUI-64 ids made from MAC addresses f2:3c:91:xx:xx:xx, the ordinal filling xx:xx:xx. */
const EUI64_BASE = 0xf03c_91ff_fe00_0000n;
const SLAAC_CAPACITY = 1 << 24;
const HOST_BITS_64 = (1n << 64n) - 1n;
const MAX_ATTEMPTS = 32;

function block(text: string, version: 4 | 6, what: string): Block {
  const parsed = parseCidr(text);
  if (!parsed || parsed.version !== version) throw new Error(`${what} ${text} is not an IPv${version} network`);
  return parsed;
}

/** Public IPv4: /24 subnets (or the whole pool when smaller) whose .0, .1 (the gateway) and last address are skipped. */
function publicIpv4(region: RegionDataT): Pool {
  const pool = block(region.ipv4_pool, 4, `region ${region.id} ipv4_pool`);
  const prefix = Math.max(pool.prefix, 24);
  const subnetSize = 1 << (32 - prefix);
  const hosts = Math.max(0, subnetSize - 3);
  const subnets = Number(pool.size) / subnetSize;
  return {
    key: { region: region.id, type: 'ipv4', public: 1 },
    capacity: subnets * hosts,
    at(ordinal) {
      const subnet = pool.first + BigInt(Math.floor(ordinal / hosts) * subnetSize);
      return {
        address: formatAddress(4, subnet + BigInt(2 + (ordinal % hosts))),
        prefix,
        gateway: formatAddress(4, subnet + 1n),
        subnet_mask: prefixMask(4, prefix),
      };
    },
  };
}

/** Private IPv4: every host address of 192.168.128.0/17 but the first and the last; no gateway. */
function privateIpv4(region: RegionDataT): Pool {
  const pool = block(PRIVATE_IPV4_NETWORK, 4, 'the private network');
  return {
    key: { region: region.id, type: 'ipv4', public: 0 },
    capacity: Number(pool.size) - 2,
    at(ordinal) {
      return {
        address: formatAddress(4, pool.first + BigInt(ordinal + 1)),
        prefix: pool.prefix,
        gateway: null,
        subnet_mask: prefixMask(4, pool.prefix),
      };
    },
  };
}

/** The region's IPv6 prefix: its first /64 is the SLAAC network, IPv6 pools and ranges are cut from the rest. */
export function ipv6PrefixOf(region: RegionDataT): Block {
  const prefix = block(region.ipv6_prefix, 6, `region ${region.id} ipv6_prefix`);
  if (prefix.prefix > 64) throw new Error(`region ${region.id} ipv6_prefix must be a /64 or shorter`);
  return prefix;
}

/** SLAAC IPv6: the first /64 of the region's prefix, with EUI-64-like host parts. */
function slaac(region: RegionDataT): Pool {
  const pool = ipv6PrefixOf(region);
  return {
    key: { region: region.id, type: 'ipv6', public: 1 },
    capacity: SLAAC_CAPACITY,
    at(ordinal) {
      return {
        address: formatAddress(6, pool.first + (EUI64_BASE | BigInt(ordinal))),
        prefix: 64,
        gateway: IPV6_GATEWAY,
        subnet_mask: prefixMask(6, 64),
      };
    },
  };
}

/** Pools made so far, by what they are made from: parsing a region's networks cost more than the allocation's SQL. */
const pools = new Map<string, Pool>();

export function poolOf(region: RegionDataT, name: PoolName): Pool {
  const key = `${name} ${region.id} ${region.ipv4_pool} ${region.ipv6_prefix}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = name === 'public-ipv4' ? publicIpv4(region) : name === 'private-ipv4' ? privateIpv4(region) : slaac(region);
    pools.set(key, pool);
  }
  return pool;
}

/** The link-local address that goes with a SLAAC address: fe80::/64 with the same host part. */
export function linkLocalOf(slaacAddress: bigint): bigint {
  return (0xfe80n << 112n) | (slaacAddress & HOST_BITS_64);
}

export interface Allocation {
  accountId: number;
  nodeId: number;
  region: RegionDataT;
  pool: PoolName;
}

/** A free address of the pool for a node, in the caller's transaction (`allocateAddresses`). */
export async function allocateAddress(db: Kysely<Database>, ctx: Context, spec: Allocation): Promise<IpAddressRow> {
  const [row] = await allocateAddresses(db, ctx, spec, [spec.pool]);
  return row as IpAddressRow;
}

/** The ordinal to try for a pool whose claim found none: past the end of the pool, or many more under way than it looks ahead. */
async function ordinalInTurn(db: Kysely<Database>, pool: Pool): Promise<number | null> {
  await lockName(db, `ip_addresses ${pool.key.region} ${pool.key.type} ${pool.key.public}`);
  return (await findOrdinalPastEnd(db, pool.key, pool.capacity)) ?? findFirstFreeOrdinal(db, pool.key, pool.capacity);
}

/**
 * Takes a free address of each pool for a node, in the caller's transaction; the rows come back in
 * the order of the pools. Every pool's ordinal is claimed in one statement and every address inserted
 * in another. On PostgreSQL concurrent allocations from one pool claim consecutive ordinals without
 * waiting (`claimNextOrdinals`); past the pool's end, or when many more are under way than it looks
 * ahead, they take turns (a lock held to the end of the transaction) and search for a gap. The
 * pool's unique indexes guard in any case: an address a concurrent allocation took is not inserted,
 * and its pool is tried again, so an address is never handed to two nodes.
 */
export async function allocateAddresses(
  db: Kysely<Database>,
  ctx: Context,
  node: { accountId: number; nodeId: number; region: RegionDataT },
  names: readonly PoolName[],
): Promise<IpAddressRow[]> {
  const pools = names.map((name) => poolOf(node.region, name));
  const taken: (IpAddressRow | undefined)[] = pools.map(() => undefined);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const pending = pools.flatMap((pool, i) => (taken[i] ? [] : [{ pool, i }]));
    if (pending.length === 0) return taken as IpAddressRow[];
    const claimed = await claimNextOrdinals(
      db,
      pending.map(({ pool }) => pool),
    );
    const created = toTimestamp(ctx.clock.nowMs());
    const values = [];
    for (const [j, { pool, i }] of pending.entries()) {
      const ordinal = claimed[j] ?? (await ordinalInTurn(db, pool));
      if (ordinal === null) {
        throw fail.badRequest(`No ${names[i]} addresses are left in region ${node.region.id}`, 'region');
      }
      values.push({
        ...pool.at(ordinal),
        account_id: node.accountId,
        node_id: node.nodeId,
        region: pool.key.region,
        type: pool.key.type,
        public: pool.key.public,
        rdns: null,
        ordinal,
        created,
      });
    }
    for (const row of await insertAddressesIfFree(db, values)) {
      const j = values.findIndex((v) => v.ordinal === row.ordinal && v.type === row.type && v.public === row.public);
      const slot = pending[j];
      if (slot) taken[slot.i] = row;
    }
  }
  if (taken.every((row) => row !== undefined)) return taken as IpAddressRow[];
  throw fail.unavailable(`Could not allocate an address in region ${node.region.id}; try again`);
}
