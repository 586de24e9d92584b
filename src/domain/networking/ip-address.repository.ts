import { type Insertable, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedTo } from '../../db/grant-scope.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import { preparedRead, preparedStatement, rowArguments, rowsOf } from '../../db/prepared.ts';
import { isPostgres } from '../../db/transaction.ts';
import type { AccountScope } from '../account/principal.ts';
import type { IpAddressTable } from './ip-address.table.ts';

export type IpAddressRow = Selectable<IpAddressTable>;

/** One pool of a region: its rows share region, type and public, and are numbered by `ordinal`. */
export interface PoolKey {
  region: string;
  type: string;
  public: number;
}

function inPool(db: Kysely<Database>, pool: PoolKey) {
  return db
    .selectFrom('ip_addresses')
    .where('region', '=', pool.region)
    .where('type', '=', pool.type)
    .where('public', '=', pool.public);
}

// A literal limit: SQLite prepares a statement with a bound limit again every time it is rebound.
const maxOrdinal = preparedRead((db, pool: { region: string; type: string; public: number }) =>
  inPool(db, pool).select('ordinal').orderBy('ordinal', 'desc').limit(sql.lit(1)),
);

/** The ordinal after the highest in use in a pool (read off the end of the pool index), or null past the pool's end. */
export async function findOrdinalPastEnd(db: Kysely<Database>, pool: PoolKey, capacity: number): Promise<number | null> {
  const [row] = await maxOrdinal(db, '', { region: pool.region, type: pool.type, public: pool.public });
  const next = row ? Number(row.ordinal) + 1 : 0;
  return next < capacity ? next : null;
}

/** How many ordinals past the highest in use an allocation tries before it waits its turn. */
const CLAIM_WINDOW = 64;

/** A pool an allocation claims from, and how many ordinals it holds. */
export interface PoolClaim {
  key: PoolKey;
  capacity: number;
}

/**
 * The next ordinal of each pool for an allocation, in the order given: null where there is none past
 * the highest in use or (PostgreSQL) every one of the next CLAIM_WINDOW is being taken by a
 * concurrent transaction. On PostgreSQL each candidate is claimed with a lock of its own, tried and
 * not waited for, held to the end of the transaction: concurrent allocations from one pool take
 * consecutive ordinals instead of taking turns; every pool is claimed in one statement. One a
 * transaction claimed and did not keep stays free, a gap the pool's end fills (`findFirstFreeOrdinal`).
 */
export async function claimNextOrdinals(db: Kysely<Database>, pools: readonly PoolClaim[]): Promise<(number | null)[]> {
  if (!(db.isTransaction && isPostgres(db))) {
    const claimed: (number | null)[] = [];
    for (const { key, capacity } of pools) claimed.push(await findOrdinalPastEnd(db, key, capacity));
    return claimed;
  }
  const { rows } = await sql<{ n: number | string; ordinal: number | string | null }>`
    select p.n, (
      select o.ordinal from
        (select coalesce(max(a.ordinal), -1) + 1 as first from ip_addresses a
          where a.region = p.region and a.type = p.type and a.public = p.public) m,
        generate_series(m.first, least(m.first + ${CLAIM_WINDOW - 1}, p.capacity - 1)) as o(ordinal)
      where pg_try_advisory_xact_lock(hashtextextended(
        concat_ws(' ', current_schema(), 'ip_addresses', p.region, p.type, p.public, o.ordinal), 0))
      limit 1) as ordinal
    from unnest(${pools.map((p) => p.key.region)}::text[], ${pools.map((p) => p.key.type)}::text[],
      ${pools.map((p) => p.key.public)}::int[], ${pools.map((p) => p.capacity)}::bigint[])
      with ordinality as p(region, type, public, capacity, n)
    order by p.n`.execute(db);
  return rows.map((row) => (row.ordinal === null ? null : Number(row.ordinal)));
}

/**
 * The lowest free ordinal below `capacity`, or null when the pool is full. It walks the pool, so it
 * is used only once the end of the pool has been reached.
 */
export async function findFirstFreeOrdinal(db: Kysely<Database>, pool: PoolKey, capacity: number): Promise<number | null> {
  const { region, type } = pool;
  const row = await sql<{ free: number | string | null }>`
    select min(o) as free from (
      select 0 as o where not exists (
        select 1 from ip_addresses where region = ${region} and type = ${type} and public = ${pool.public} and ordinal = 0)
      union all
      select a.ordinal + 1 as o from ip_addresses a
      where a.region = ${region} and a.type = ${type} and a.public = ${pool.public} and a.ordinal + 1 < ${capacity}
        and not exists (
          select 1 from ip_addresses b
          where b.region = a.region and b.type = a.type and b.public = a.public and b.ordinal = a.ordinal + 1)
    ) gaps where o < ${capacity}`.execute(db);
  const free = row.rows[0]?.free;
  return free === null || free === undefined ? null : Number(free);
}

const insertAddressRows = preparedStatement((db, args: Record<string, unknown>, shape) =>
  db
    .insertInto('ip_addresses')
    .values(rowsOf(args, shape) as Insertable<IpAddressTable>[])
    .onConflict((oc) => oc.doNothing())
    .returningAll(),
);

/**
 * Inserts addresses in one statement, each unless its address or ordinal is taken (by a concurrent
 * allocation); the rows inserted come back, those taken do not.
 */
export function insertAddressesIfFree(
  db: Kysely<Database>,
  values: readonly Insertable<IpAddressTable>[],
): Promise<IpAddressRow[]> {
  return insertAddressRows(db, String(values.length), rowArguments(values));
}

const FILTER: FilterSpec = {
  fields: {
    region: { column: 'ip_addresses.region', type: 'string' },
    node_id: { column: 'ip_addresses.node_id', type: 'integer' },
    // No address is reserved apart from a node here (the IP objects say `reserved: false`).
    reserved: {
      column: 'reserved',
      type: 'boolean',
      custom: (op, value) => ((op === 'eq') === (value === false) ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`),
    },
  },
  defaultOrder: { column: 'ip_addresses.region', direction: 'asc' },
  tiebreak: 'ip_addresses.address',
};

/** The account's addresses; a restricted user sees only those of nodes it holds a grant on. */
function visibleAddresses(db: Kysely<Database>, scope: AccountScope) {
  return db
    .selectFrom('ip_addresses')
    .selectAll('ip_addresses')
    .where('ip_addresses.account_id', '=', scope.accountId)
    .where(grantedTo(scope, 'node', 'ip_addresses.node_id'));
}

/** The public addresses the scope sees (public IPv4 and SLAAC IPv6), by region and address. */
export function listPublicAddresses(
  db: Kysely<Database>,
  scope: AccountScope,
  request: PageRequest,
): Promise<Page<IpAddressRow>> {
  return paginate(visibleAddresses(db, scope).where('ip_addresses.public', '=', 1), request, FILTER);
}

/** One address the scope sees, in canonical form; private addresses repeat across regions, the first region's wins. */
export async function findVisibleAddress(
  db: Kysely<Database>,
  scope: AccountScope,
  address: string,
): Promise<IpAddressRow | undefined> {
  return visibleAddresses(db, scope)
    .where('ip_addresses.address', '=', address)
    .orderBy('ip_addresses.region')
    .limit(sql.lit(1))
    .executeTakeFirst();
}

/** Addresses held by some nodes of the account, public before private, oldest first within each. */
function addressesOfNodes(db: Kysely<Database>, accountId: number, nodeIds: readonly number[], type?: 'ipv4' | 'ipv6') {
  let q = db
    .selectFrom('ip_addresses')
    .where('account_id', '=', accountId)
    .where('node_id', 'in', [...nodeIds]);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('public', 'desc').orderBy('created').orderBy('ordinal');
}

export async function findAddressesOfNodes(
  db: Kysely<Database>,
  accountId: number,
  nodeIds: readonly number[],
  type?: 'ipv4' | 'ipv6',
): Promise<IpAddressRow[]> {
  if (nodeIds.length === 0) return [];
  return addressesOfNodes(db, accountId, nodeIds, type).selectAll().execute();
}

/** Just the node and address of each, in the same order: what a page of node objects shows. */
export async function findAddressTextsOfNodes(
  db: Kysely<Database>,
  accountId: number,
  nodeIds: readonly number[],
  type?: 'ipv4' | 'ipv6',
): Promise<{ node_id: number | null; address: string }[]> {
  if (nodeIds.length === 0) return [];
  return addressesOfNodes(db, accountId, nodeIds, type).select(['node_id', 'address']).execute();
}

export async function findNodeAddress(
  db: Kysely<Database>,
  accountId: number,
  nodeId: number,
  address: string,
): Promise<IpAddressRow | undefined> {
  return db
    .selectFrom('ip_addresses')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('node_id', '=', nodeId)
    .where('address', '=', address)
    .executeTakeFirst();
}

/** Whether one of the account's nodes holds `address` (canonical form). */
export async function accountNodeHoldsAddress(db: Kysely<Database>, accountId: number, address: string): Promise<boolean> {
  const row = await db
    .selectFrom('ip_addresses')
    .select('address')
    .where('account_id', '=', accountId)
    .where('node_id', 'is not', null)
    .where('address', '=', address)
    .limit(sql.lit(1))
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateAddressRdns(
  db: Kysely<Database>,
  row: Pick<IpAddressRow, 'account_id' | 'region' | 'address'>,
  rdns: string | null,
): Promise<IpAddressRow> {
  return db
    .updateTable('ip_addresses')
    .set({ rdns })
    .where('account_id', '=', row.account_id)
    .where('region', '=', row.region)
    .where('address', '=', row.address)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAddress(
  db: Kysely<Database>,
  row: Pick<IpAddressRow, 'account_id' | 'region' | 'address'>,
): Promise<void> {
  await db
    .deleteFrom('ip_addresses')
    .where('account_id', '=', row.account_id)
    .where('region', '=', row.region)
    .where('address', '=', row.address)
    .execute();
}

/** Gives every address of a node back to its pool. */
export async function deleteAddressesOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db.deleteFrom('ip_addresses').where('account_id', '=', accountId).where('node_id', '=', nodeId).execute();
}

/** Those of `addresses` (canonical IPv4 or IPv6 text) the scope sees in one region. */
export async function findVisibleAddressesIn(
  db: Kysely<Database>,
  scope: AccountScope,
  region: string,
  addresses: readonly string[],
): Promise<IpAddressRow[]> {
  if (addresses.length === 0) return [];
  return visibleAddresses(db, scope)
    .where('ip_addresses.region', '=', region)
    .where('ip_addresses.address', 'in', [...addresses])
    .execute();
}

/** Gives an address to another node of the same account and region. */
export async function moveAddressToNode(
  db: Kysely<Database>,
  row: Pick<IpAddressRow, 'account_id' | 'region' | 'address'>,
  nodeId: number,
): Promise<void> {
  await db
    .updateTable('ip_addresses')
    .set({ node_id: nodeId })
    .where('account_id', '=', row.account_id)
    .where('region', '=', row.region)
    .where('address', '=', row.address)
    .execute();
}
