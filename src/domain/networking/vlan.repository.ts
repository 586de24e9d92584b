import { type Kysely, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import type { VlanAttachmentRow, VlanTable } from './vlan.table.ts';

export type VlanRow = Selectable<VlanTable>;

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'vlans.label', type: 'string' },
    region: { column: 'vlans.region', type: 'string' },
    created: { column: 'vlans.created', type: 'datetime' },
  },
  defaultOrder: { column: 'vlans.id', direction: 'asc' },
  tiebreak: 'vlans.id',
};

/** Makes sure the account has a VLAN of this label in the region; an existing one is reused. */
export async function ensureVlan(
  db: Kysely<Database>,
  vlan: { accountId: number; region: string; label: string; created: string },
): Promise<void> {
  await db
    .insertInto('vlans')
    .values({ account_id: vlan.accountId, region: vlan.region, label: vlan.label, created: vlan.created })
    .onConflict((oc) => oc.columns(['account_id', 'region', 'label']).doNothing())
    .execute();
}

/** The attachments of the scope's nodes, as a subquery (the nodes group makes it from config interfaces). */
export type Attachments = RawBuilder<VlanAttachmentRow>;

/** The account's VLANs that some node the scope sees has an interface on; the others are not listed. */
export function listVlans(
  db: Kysely<Database>,
  scope: AccountScope,
  attachments: Attachments,
  request: PageRequest,
): Promise<Page<VlanRow>> {
  const attached = sql<SqlBool>`exists (select 1 from (${attachments}) a
    where a.region = vlans.region and a.label = vlans.label)`;
  const query = db.selectFrom('vlans').selectAll('vlans').where('vlans.account_id', '=', scope.accountId).where(attached);
  return paginate(query, request, FILTER);
}

/** The nodes attached to some VLANs (by label; the caller matches regions), by node id. */
export async function findVlanNodes(
  db: Kysely<Database>,
  attachments: Attachments,
  labels: readonly string[],
): Promise<VlanAttachmentRow[]> {
  if (labels.length === 0) return [];
  const result = await sql<VlanAttachmentRow>`select node_id, region, label from (${attachments}) a
    where a.label in (${sql.join(labels)}) order by node_id`.execute(db);
  return result.rows;
}
