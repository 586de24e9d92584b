import { type Insertable, type Kysely, type RawBuilder, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { FilterSpec } from '../../../db/filter.ts';
import { grantedTo } from '../../../db/grant-scope.ts';
import { jsonArrayRows } from '../../../db/json-array.ts';
import { type Page, type PageRequest, paginate } from '../../../db/paginate.ts';
import { preparedStatement } from '../../../db/prepared.ts';
import { fail } from '../../../errors.ts';
import type { AccountScope } from '../../account/principal.ts';
import type { ConfigTable } from './config.table.ts';

export type ConfigRow = Selectable<ConfigTable>;

/** A config's label, and its interfaces by the label of a VLAN they join (`{"interfaces": "my-vlan"}`). */
function filterSpec(db: Kysely<Database>): FilterSpec {
  const interfaces = jsonArrayRows(db, 'configs.interfaces');
  return {
    fields: {
      label: { column: 'configs.label', type: 'string' },
      interfaces: {
        column: 'configs.interfaces',
        type: 'string',
        custom: (op, value) => {
          const joins = sql<SqlBool>`exists (select 1 from ${interfaces.rows} where ${interfaces.field('label')} = ${value})`;
          if (op === 'eq') return joins;
          if (op === 'neq') return sql<SqlBool>`not ${joins}`;
          throw fail.badRequest('Filter interfaces by the label of a VLAN, equal or not equal to it', 'X-Filter');
        },
      },
    },
    defaultOrder: { column: 'configs.id', direction: 'asc' },
    tiebreak: 'configs.id',
  };
}

function configsOf(db: Kysely<Database>, accountId: number, nodeId: number) {
  return db
    .selectFrom('configs')
    .selectAll('configs')
    .where('configs.account_id', '=', accountId)
    .where('configs.node_id', '=', nodeId);
}

export function listConfigs(
  db: Kysely<Database>,
  accountId: number,
  nodeId: number,
  request: PageRequest,
): Promise<Page<ConfigRow>> {
  return paginate(configsOf(db, accountId, nodeId), request, filterSpec(db));
}

export function findConfigs(db: Kysely<Database>, accountId: number, nodeId: number): Promise<ConfigRow[]> {
  return configsOf(db, accountId, nodeId).orderBy('configs.id').execute();
}

export function findConfig(db: Kysely<Database>, accountId: number, nodeId: number, id: number): Promise<ConfigRow | undefined> {
  return configsOf(db, accountId, nodeId).where('configs.id', '=', id).executeTakeFirst();
}

const insertConfigStatement = preparedStatement((db, values: Insertable<ConfigTable>) =>
  db.insertInto('configs').values(values).returningAll(),
);

export async function insertConfig(db: Kysely<Database>, values: Insertable<ConfigTable>): Promise<ConfigRow> {
  const [row] = await insertConfigStatement(db, '', values);
  if (!row) throw fail.internal();
  return row;
}

export function updateConfigRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<ConfigTable>,
): Promise<ConfigRow> {
  return db
    .updateTable('configs')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteConfigRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('configs').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Removes every config of a node (a rebuild or an overwriting restore starts from none). */
export async function deleteConfigsOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db.deleteFrom('configs').where('account_id', '=', accountId).where('node_id', '=', nodeId).execute();
}

interface VlanInterfaceRow {
  node_id: number;
  region: string;
  label: string;
}

/**
 * Every VLAN a config of the scope's nodes has an interface on, once per node, as a subquery
 * (node_id, region, label): what the VLAN list is made from. A restricted user counts only the
 * nodes it holds a grant on.
 */
export function vlanInterfaces(db: Kysely<Database>, scope: AccountScope): RawBuilder<VlanInterfaceRow> {
  const interfaces = jsonArrayRows(db, 'c.interfaces');
  const [elements, purpose, label] = [interfaces.rows, interfaces.field('purpose'), interfaces.field('label')];
  return sql<VlanInterfaceRow>`select distinct c.node_id as node_id, n.region as region, ${label} as label
    from configs c join nodes n on n.id = c.node_id and n.account_id = c.account_id cross join ${elements}
    where c.account_id = ${scope.accountId} and ${purpose} = 'vlan' and ${grantedTo(scope, 'node', 'n.id')}`;
}
