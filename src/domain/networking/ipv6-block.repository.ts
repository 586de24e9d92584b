import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedTo } from '../../db/grant-scope.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import type { Ipv6BlockTable } from './ipv6-block.table.ts';

export type Ipv6BlockRow = Selectable<Ipv6BlockTable>;

const order = {
  defaultOrder: { column: 'ipv6_blocks.region', direction: 'asc' },
  tiebreak: 'ipv6_blocks.range',
} as const;
const POOL_FILTER: FilterSpec = { fields: { region: { column: 'ipv6_blocks.region', type: 'string' } }, ...order };
// The reference marks no field of a range filterable.
const RANGE_FILTER: FilterSpec = { fields: {}, ...order };

function blocksOf(db: Kysely<Database>, accountId: number, kind: Ipv6BlockTable['kind']) {
  return db
    .selectFrom('ipv6_blocks')
    .selectAll('ipv6_blocks')
    .where('ipv6_blocks.account_id', '=', accountId)
    .where('ipv6_blocks.kind', '=', kind);
}

/** The account's pools; every node of the account in a pool's region reaches it, so every user sees them. */
export function listPools(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<Ipv6BlockRow>> {
  return paginate(blocksOf(db, scope.accountId, 'pool'), request, POOL_FILTER);
}

/** The account's ranges; a restricted user sees those routed to nodes it holds a grant on. */
export function listRanges(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<Ipv6BlockRow>> {
  const query = blocksOf(db, scope.accountId, 'range').where(grantedTo(scope, 'node', 'ipv6_blocks.node_id'));
  return paginate(query, request, RANGE_FILTER);
}

/** The ranges routed to one node. */
export function findRangesOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<Ipv6BlockRow[]> {
  return blocksOf(db, accountId, 'range').where('ipv6_blocks.node_id', '=', nodeId).orderBy('ipv6_blocks.range').execute();
}
