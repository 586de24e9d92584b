import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { type EgressRefusal, egressRefusalText, type OwnAddressCheck } from '../../net/egress.ts';
import { type EgressGate, egressGate } from '../../net/egress-gate.ts';
import { normaliseIp } from '../../net/ip-address.ts';
import { accountNodeHoldsAddress } from './ip-address.repository.ts';
import { canonicalAddress } from './ip-address.service.ts';

/*
 * What other groups ask of networking about outbound connections made for an account: the egress
 * policy (src/net/egress.ts) with the account's own nodes' addresses as its own.
 */

function ownAddressesOf(db: Kysely<Database>, accountId: number): OwnAddressCheck {
  return async (ip) => {
    const address = canonicalAddress(ip);
    return address !== null && (await accountNodeHoldsAddress(db, accountId, address));
  };
}

/**
 * Why the policy refuses a connection to `address` (an IP address in any spelling) on `port` for the
 * account, in words for a 400; null when allowed, and for a host name: names are resolved and
 * checked when the connection is made, never earlier.
 */
export async function egressRefusalFor(
  ctx: Pick<Context, 'egress'>,
  db: Kysely<Database>,
  accountId: number,
  address: string,
  port: number,
): Promise<string | null> {
  const ip = normaliseIp(address);
  if (ip === null) return null;
  const refusal: EgressRefusal | null = await ctx.egress.refusal(ip, port, ownAddressesOf(db, accountId));
  return refusal === null ? null : `Must be an address this service may connect to: ${egressRefusalText(ip, refusal)}`;
}

/** The gate connections made for the account go through: names resolved and checked at connection time. */
export function egressGateFor(ctx: Pick<Context, 'egress' | 'db'>, accountId: number): EgressGate {
  return egressGate(ctx.egress, ownAddressesOf(ctx.db, accountId));
}
