import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

export type TaggedEntityType = 'node' | 'domain' | 'nodebalancer' | 'volume' | 'firewall';

/** Replaces the tags of one object, creating account tags that do not exist yet. */
export async function setEntityTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
  labels: readonly string[],
  now: string,
): Promise<void> {
  const unique = [...new Set(labels)];
  await db
    .deleteFrom('entity_tags')
    .where('account_id', '=', accountId)
    .where('entity_type', '=', entityType)
    .where('entity_id', '=', entityId)
    .execute();
  if (unique.length === 0) return;
  await db
    .insertInto('tags')
    .values(unique.map((label) => ({ account_id: accountId, label, created: now })))
    .onConflict((oc) => oc.columns(['account_id', 'label']).doNothing())
    .execute();
  await db
    .insertInto('entity_tags')
    .values(unique.map((tag) => ({ account_id: accountId, tag, entity_type: entityType, entity_id: entityId })))
    .execute();
}

/** Tags of several objects at once, sorted, keyed by object id. */
export async function findTagsOf(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityIds: readonly number[],
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(entityIds.map((id) => [id, []]));
  if (entityIds.length === 0) return out;
  const rows = await db
    .selectFrom('entity_tags')
    .select(['entity_id', 'tag'])
    .where('account_id', '=', accountId)
    .where('entity_type', '=', entityType)
    .where('entity_id', 'in', entityIds)
    // Ordered as the primary key is, so the lookup reads it in order (each object's tags come out sorted).
    .orderBy('entity_id')
    .orderBy('tag')
    .execute();
  for (const r of rows) out.get(r.entity_id)?.push(r.tag);
  return out;
}

export async function deleteEntityTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
): Promise<void> {
  await db
    .deleteFrom('entity_tags')
    .where('account_id', '=', accountId)
    .where('entity_type', '=', entityType)
    .where('entity_id', '=', entityId)
    .execute();
}
