import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockRows } from '../../db/row-locks.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { parseAddress } from '../../net/cidr.ts';
import type { AccountScope } from '../account/principal.ts';
import { findVisibleAddressesIn, type IpAddressRow } from './ip-address.repository.ts';
import { canonicalAddress } from './ip-address.service.ts';

/** Addresses a request names in its body, each with the field that named it. */
export interface NamedAddress {
  address: string;
  field: string;
}

/** The canonical IPv4 address of each text, or a 400 naming every field that is not one or repeats another. */
export function namedIpv4(texts: readonly { text: string; field: string }[]): NamedAddress[] {
  const errors: ErrorItem[] = [];
  const seen = new Set<string>();
  const named: NamedAddress[] = [];
  for (const { text, field } of texts) {
    const address = parseAddress(text)?.version === 4 ? canonicalAddress(text) : null;
    if (address === null) errors.push({ field, reason: `${text} is not an IPv4 address` });
    else if (seen.has(address)) errors.push({ field, reason: `${address} is named more than once` });
    else {
      seen.add(address);
      named.push({ address, field });
    }
  }
  if (errors.length > 0) throw fail.invalid(errors);
  return named;
}

function sameHolders(a: readonly IpAddressRow[], b: readonly IpAddressRow[]): boolean {
  const holder = new Map(a.map((r) => [r.address, r.node_id]));
  return a.length === b.length && b.every((r) => holder.has(r.address) && holder.get(r.address) === r.node_id);
}

/**
 * The named addresses of one region, read while their holders and `alsoLock` are locked (in one
 * call, so two requests crossing the same nodes queue instead of deadlocking). An address that
 * changes holder between the read and the lock is read again under the new holder's lock. A name
 * the scope cannot see in the region is a 400 on its field.
 */
export async function lockAddressHolders(
  db: Kysely<Database>,
  scope: AccountScope,
  region: string,
  named: readonly NamedAddress[],
  alsoLock: readonly number[],
): Promise<Map<string, IpAddressRow>> {
  const addresses = named.map((n) => n.address);
  let rows = await findVisibleAddressesIn(db, scope, region, addresses);
  for (;;) {
    await lockRows(db, 'nodes', 'id', [...alsoLock, ...rows.flatMap((r) => (r.node_id === null ? [] : [r.node_id]))]);
    const again = await findVisibleAddressesIn(db, scope, region, addresses);
    if (sameHolders(rows, again)) break;
    rows = again;
  }
  const byAddress = new Map(rows.filter((r) => r.node_id !== null).map((r) => [r.address, r]));
  const missing = named.filter((n) => !byAddress.has(n.address));
  if (missing.length > 0) {
    throw fail.invalid(
      missing.map((n) => ({ field: n.field, reason: `${n.address} is not one of your addresses in ${region}` })),
    );
  }
  return byAddress;
}
