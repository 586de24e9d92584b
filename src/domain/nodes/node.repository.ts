import { type Insertable, type Kysely, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import { escapeLike, type FilterSpec, SQL_OPS } from '../../db/filter.ts';
import { grantedTo, grantPermission } from '../../db/grant-scope.ts';
import {
  type JsonPage,
  type Page,
  type PageRequest,
  PageStatementCache,
  paginate,
  paginateJson,
  paginateValues,
} from '../../db/paginate.ts';
import { preparedRead, preparedStatement } from '../../db/prepared.ts';
import { fail } from '../../errors.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import { tagsFilterField } from '../tags/tag-filter.ts';
import type { NodeTable } from './node.table.ts';
import { NODE_OFFER } from './node-offer.ts';

export type NodeRow = Selectable<NodeTable>;

/** The reference's filterable node fields. */
const FILTER: FilterSpec = {
  fields: {
    id: { column: 'nodes.id', type: 'integer' },
    label: { column: 'nodes.label', type: 'string' },
    region: { column: 'nodes.region', type: 'string' },
    image: { column: 'nodes.image', type: 'string' },
    group: { column: 'nodes.node_group', type: 'string' },
    tags: tagsFilterField('node', 'nodes.id'),
    created: { column: 'nodes.created', type: 'datetime' },
    updated: { column: 'nodes.updated', type: 'datetime' },
    // A node shows its region's site type (core or distributed): the regions that have it.
    site_type: {
      column: 'nodes.region',
      type: 'string',
      custom(op, value) {
        const ofType = (condition: ReturnType<typeof sql<SqlBool>>) =>
          sql<SqlBool>`nodes.region in (select r.id from regions r where ${condition})`;
        if (op === 'contains') return ofType(sql<SqlBool>`r.site_type like ${`%${escapeLike(String(value))}%`} escape '\\'`);
        return ofType(sql<SqlBool>`r.site_type ${sql.raw(SQL_OPS[op])} ${value}`);
      },
    },
    ipv4: {
      column: 'nodes.id',
      type: 'string',
      sortable: false,
      custom(op, value) {
        const holds = (condition: ReturnType<typeof sql<SqlBool>>) =>
          sql<SqlBool>`exists (select 1 from ip_addresses ia where ia.node_id = nodes.id and ia.type = 'ipv4' and ${condition})`;
        if (op === 'eq') return holds(sql<SqlBool>`ia.address = ${value}`);
        if (op === 'neq') return sql<SqlBool>`not ${holds(sql<SqlBool>`ia.address = ${value}`)}`;
        if (op === 'contains') return holds(sql<SqlBool>`ia.address like ${`%${escapeLike(String(value))}%`} escape '\\'`);
        return holds(sql<SqlBool>`ia.address ${sql.raw(SQL_OPS[op])} ${value}`);
      },
    },
  },
  defaultOrder: { column: 'nodes.id', direction: 'asc' },
  tiebreak: 'nodes.id',
};

/** The account's nodes; a restricted user sees only those it holds a grant on. */
function visibleNodes(db: Kysely<Database>, scope: AccountScope) {
  return db
    .selectFrom('nodes')
    .where('nodes.account_id', '=', scope.accountId)
    .where(grantedTo(scope, 'node', 'nodes.id'));
}

/** The columns a node's API object shows (nodeRowToNode); lists read only these. */
export const NODE_VIEW_COLUMNS = [
  'id',
  'account_id',
  'label',
  'region',
  'image',
  'type',
  'node_group',
  'status',
  'created',
  'updated',
  'ipv6',
  'alerts_cpu',
  'alerts_io',
  'alerts_network_in',
  'alerts_network_out',
  'alerts_transfer_quota',
  'backups_enabled',
  'backups_day',
  'backups_window',
  'backups_last_successful',
  'watchdog_enabled',
  'tag_list',
  'ipv4_list',
] as const satisfies readonly (keyof NodeRow)[];

/** A node as its API object needs it; its tags and IPv4 addresses are JSON arrays the database keeps on its row (`readList`). */
export type NodeViewRow = Pick<NodeRow, (typeof NODE_VIEW_COLUMNS)[number]>;

/** The account's nodes with what their views show, each in one row: no statement more per node or per page. */
function nodeViews(db: Kysely<Database>, scope: AccountScope) {
  return visibleNodes(db, scope).select(NODE_VIEW_COLUMNS.map((c) => `nodes.${c}` as const));
}

export function listNodes(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<NodeViewRow>> {
  return paginate(nodeViews(db, scope), request, FILTER);
}

/** Whose list a page of nodes is, as visibleNodes cuts it (a PageStatementCache's owner). */
const ownerOf = (scope: AccountScope) => `${scope.accountId}:${scope.restrictedUserId ?? ''}`;

const valuePages = new PageStatementCache();

/** listNodes' page, each node's view row as its values (NODE_VIEW_COLUMNS' order). */
export function listNodeValues(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<unknown[]>> {
  return paginateValues(db, { query: () => nodeViews(db, scope), cache: valuePages, owner: ownerOf(scope) }, request, FILTER);
}

/**
 * A node's API object as SQLite writes it, field for field what nodeRowToNode makes and in
 * NodeSchema's order (test/nodes/node-json.test.ts holds the two together); its specs come from
 * the catalog's copy in node_types (joined as `t`), zero for a type the catalog no longer has.
 */
const SQL_OFFER = Object.entries(NODE_OFFER)
  .map(([key, value]) => `'${key}', ${typeof value === 'string' ? `'${value}'` : `json('${JSON.stringify(value)}')`}`)
  .join(', ');
const NODE_JSON = `json_object('id', nodes.id, 'label', nodes.label, 'region', nodes.region, 'image', nodes.image, 'type', nodes.type,
  'group', nodes.node_group, 'tags', json(nodes.tag_list), 'status', nodes.status, 'hypervisor', 'kvm',
  'created', nodes.created, 'updated', nodes.updated, 'ipv4', json(nodes.ipv4_list), 'ipv6', nodes.ipv6 || '/128',
  'specs', json_object('disk', coalesce(t.disk, 0), 'memory', coalesce(t.memory, 0), 'vcpus', coalesce(t.vcpus, 0),
    'transfer', coalesce(t.transfer, 0), 'gpus', coalesce(t.gpus, 0), 'accelerated_devices', 0),
  'alerts', json_object('cpu', nodes.alerts_cpu, 'network_in', nodes.alerts_network_in, 'network_out', nodes.alerts_network_out,
    'transfer_quota', nodes.alerts_transfer_quota, 'io', nodes.alerts_io, 'system_alerts', json('[]'), 'user_alerts', json('[]')),
  'backups', json_object('enabled', json(iif(nodes.backups_enabled = 1, 'true', 'false')),
    'schedule', json_object('day', nodes.backups_day, 'window', nodes.backups_window), 'last_successful', nodes.backups_last_successful,
    'available', json(iif(nodes.backups_enabled = 1 and nodes.backups_last_successful is not null, 'true', 'false'))),
  'watchdog_enabled', json(iif(nodes.watchdog_enabled = 1, 'true', 'false')),
  'site_type', coalesce(r.site_type, 'core'), 'host_uuid', r.host_uuid, ${SQL_OFFER})`;

const jsonPages = new PageStatementCache();

/** A page of the account's nodes as the API shows them, written as JSON by SQLite. */
export function listNodesJson(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<JsonPage> {
  const source = { query: () => visibleNodes(db, scope), cache: jsonPages, owner: ownerOf(scope) };
  return paginateJson(db, source, request, FILTER, (page) =>
    page
      .leftJoin('node_types as t', 't.id', 'nodes.type')
      .leftJoin('regions as r', 'r.id', 'nodes.region')
      .select(sql.raw(NODE_JSON).as('j')),
  );
}

const nodeView = preparedRead((db, args: { accountId: number; userId: number; id: number }, shape) =>
  nodeViews(db, { accountId: args.accountId, restrictedUserId: shape === 'restricted' ? args.userId : null }).where(
    'nodes.id',
    '=',
    args.id,
  ),
);

/** A node the scope may see, with what its view shows, in one statement (built once, then reused). */
export async function findNodeView(db: Kysely<Database>, scope: AccountScope, id: number): Promise<NodeViewRow | undefined> {
  const { accountId, restrictedUserId } = scope;
  const shape = restrictedUserId === null ? 'unrestricted' : 'restricted';
  const [row] = await nodeView(db, shape, { accountId, userId: restrictedUserId ?? 0, id });
  return row;
}

/** Some of the account's nodes, by id, with what their views show. */
export async function findNodeViewsOfAccount(
  db: Kysely<Database>,
  accountId: number,
  ids: readonly number[],
): Promise<NodeViewRow[]> {
  if (ids.length === 0) return [];
  return nodeViews(db, { accountId, restrictedUserId: null })
    .where('nodes.id', 'in', [...ids])
    .orderBy('nodes.id')
    .execute();
}

/** A node the scope may see, with the caller's permission on it (read_write for unrestricted users). */
export async function findNodeForScope(
  db: Kysely<Database>,
  scope: AccountScope,
  id: number,
): Promise<{ row: NodeRow; permission: Permission } | undefined> {
  const userId = scope.restrictedUserId;
  if (userId === null) {
    const row = await visibleNodes(db, scope).selectAll('nodes').where('nodes.id', '=', id).executeTakeFirst();
    return row && { row, permission: 'read_write' };
  }
  const found = await db
    .selectFrom('nodes')
    .selectAll('nodes')
    .select(grantPermission({ ...scope, restrictedUserId: userId }, 'node', 'nodes.id').as('permission'))
    .where('nodes.account_id', '=', scope.accountId)
    .where('nodes.id', '=', id)
    .executeTakeFirst();
  if (!found?.permission) return undefined;
  const { permission, ...row } = found;
  return { row, permission: permission as Permission };
}

export async function findNode(db: Kysely<Database>, accountId: number, id: number): Promise<NodeRow | undefined> {
  return db.selectFrom('nodes').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** Every node of an account, by id. */
export function findNodesOfAccount(db: Kysely<Database>, accountId: number): Promise<NodeRow[]> {
  return db.selectFrom('nodes').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** The ids of every node whose machine may be running (of every account), for the stats sampler. */
export async function findNodeIdsMaybeRunning(db: Kysely<Database>): Promise<number[]> {
  const rows = await db
    .selectFrom('nodes')
    .select('id')
    .where('status', 'not in', ['offline', 'stopped'])
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The operator's lookup by id alone (fault injection names a node without its account). */
export async function findNodeAnywhere(db: Kysely<Database>, id: number): Promise<NodeRow | undefined> {
  return db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
}

const insertNodeStatement = preparedStatement((db, values: Insertable<NodeTable>) =>
  db
    .insertInto('nodes')
    .values(values)
    .onConflict((oc) => oc.columns(['account_id', 'label']).doNothing())
    .returningAll(),
);

/** Inserts a node; undefined when the account already has a node with its label. */
export async function insertNode(db: Kysely<Database>, values: Insertable<NodeTable>): Promise<NodeRow | undefined> {
  const [row] = await insertNodeStatement(db, '', values);
  return row;
}

const updateNodeStatement = preparedStatement(
  (db, { $accountId, $id, ...values }: Updateable<NodeTable> & { $accountId: number; $id: number }) =>
    db.updateTable('nodes').set(values).where('account_id', '=', $accountId).where('id', '=', $id).returningAll(),
);

export async function updateNodeRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<NodeTable>,
): Promise<NodeRow> {
  const [row] = await updateNodeStatement(db, '', { ...values, $accountId: accountId, $id: id });
  if (!row) throw fail.internal();
  return row;
}

export async function nodeLabelTaken(
  db: Kysely<Database>,
  accountId: number,
  label: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db.selectFrom('nodes').select('id').where('account_id', '=', accountId).where('label', '=', label);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Marks the node busy with an operation, only if it is settled; false when another operation holds
 * it. The condition is part of the update, so of two concurrent requests only one wins.
 */
export async function claimNode(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<NodeTable> & { busy: string },
): Promise<boolean> {
  const result = await db
    .updateTable('nodes')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('busy', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Ends an operation: clears `busy` if this operation holds it, and moves the status from the
 * operation's intermediate state to its result. A status something else has changed meanwhile
 * (maintenance stopped the node mid-boot) is left alone.
 */
export async function releaseNode(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  op: { kind: string; from?: string; to?: string; updated: string; values?: Updateable<NodeTable> },
): Promise<void> {
  const { from, to } = op;
  await db
    .updateTable('nodes')
    .set({
      busy: sql<string | null>`case when busy = ${op.kind} then null else busy end`,
      ...(from !== undefined && to !== undefined
        ? { status: sql<string>`case when status = ${from} then ${to} else status end` }
        : {}),
      updated: op.updated,
      ...op.values,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export async function deleteNodeRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('nodes').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The account's nodes as grant entities (id and label): all of them, or those among `ids`. */
export async function findNodeEntities(
  db: Kysely<Database>,
  accountId: number,
  ids?: readonly number[],
): Promise<{ id: number; label: string }[]> {
  if (ids?.length === 0) return [];
  let q = db.selectFrom('nodes').select(['id', 'label']).where('account_id', '=', accountId).orderBy('id');
  if (ids) q = q.where('id', 'in', [...ids]);
  return q.execute();
}
