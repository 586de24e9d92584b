import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { RegionDataT } from '../catalog/catalog.ts';
import { findAddressesOfNodes, type IpAddressRow } from './ip-address.repository.ts';
import { findIpAllowance, upsertIpAllowance } from './ip-allowance.repository.ts';
import { allocateAddress } from './ipam.ts';

export interface NodeIpv4Request {
  accountId: number;
  nodeId: number;
  region: RegionDataT;
  public: boolean;
}

/**
 * An IPv4 address a user asks for on an existing node, whichever operation asks (the node's own
 * address list, the networking addresses): a public one only within what the operator allowed the
 * node (every node holds the one it was created with; more need a support request), and at most
 * one private one. Refusals are 400s naming `public`. In the caller's transaction, which holds the
 * node (`nodeFor` locks a node it writes), so two requests for one node count its addresses in turn.
 */
export async function allocateNodeIpv4(db: Kysely<Database>, ctx: Context, spec: NodeIpv4Request): Promise<IpAddressRow> {
  const allowed = await findIpAllowance(db, spec.accountId, spec.nodeId);
  const held = (await findAddressesOfNodes(db, spec.accountId, [spec.nodeId], 'ipv4')).filter(
    (r) => r.public === (spec.public ? 1 : 0),
  ).length;
  if (!spec.public && held >= 1) {
    throw fail.badRequest('The node already has a private IPv4 address; it may have only one', 'public');
  }
  if (spec.public && held >= allowed) {
    throw fail.badRequest(
      `Node ${spec.nodeId} holds ${held} public IPv4 address${held === 1 ? '' : 'es'}, as many as it is allowed; ` +
        'additional public IPv4 addresses must be requested by opening a support ticket',
      'public',
    );
  }
  const { accountId, nodeId, region } = spec;
  return allocateAddress(db, ctx, { accountId, nodeId, region, pool: spec.public ? 'public-ipv4' : 'private-ipv4' });
}

/** The operator's answer to a support request: the node may hold this many public IPv4 addresses in all. */
export async function setIpAllowance(
  db: Kysely<Database>,
  node: { account_id: number; id: number },
  publicIpv4: number,
): Promise<{ public_ipv4: number }> {
  return { public_ipv4: await upsertIpAllowance(db, node.account_id, node.id, publicIpv4) };
}
