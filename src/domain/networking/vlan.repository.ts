import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

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
