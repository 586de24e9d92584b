import type { Insertable, Kysely, Selectable } from 'kysely';
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
// The reference marks no field of a range filterable; clients filter them by region, as pools.
const RANGE_FILTER: FilterSpec = { fields: { region: { column: 'ipv6_blocks.region', type: 'string' } }, ...order };

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

/** Where every block of a region lies, whatever its account: what a new block must not overlap. */
export function findBlockExtentsInRegion(db: Kysely<Database>, region: string): Promise<{ range: string; prefix: number }[]> {
  return db.selectFrom('ipv6_blocks').select(['range', 'prefix']).where('region', '=', region).execute();
}

export function insertBlock(db: Kysely<Database>, values: Insertable<Ipv6BlockTable>): Promise<Ipv6BlockRow> {
  return db.insertInto('ipv6_blocks').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The block starting at this address (canonical form), of any account; regions' prefixes never overlap. */
export function findBlockStartingAt(db: Kysely<Database>, range: string): Promise<Ipv6BlockRow | undefined> {
  return db.selectFrom('ipv6_blocks').selectAll().where('range', '=', range).executeTakeFirst();
}

export async function deleteBlock(db: Kysely<Database>, block: Pick<Ipv6BlockRow, 'region' | 'range'>): Promise<void> {
  await db.deleteFrom('ipv6_blocks').where('region', '=', block.region).where('range', '=', block.range).execute();
}

/** Gives back every range routed to a node. */
export async function deleteRangesOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db
    .deleteFrom('ipv6_blocks')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'range')
    .where('node_id', '=', nodeId)
    .execute();
}
