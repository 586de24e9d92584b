import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { countRows } from '../../db/count.ts';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedToEntityIn } from '../../db/grant-scope.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import { preparedStatement, rowArguments, rowsOf } from '../../db/prepared.ts';
import { isPostgres } from '../../db/transaction.ts';
import type { AccountScope } from '../account/principal.ts';

export type TaggedEntityType = 'node' | 'domain' | 'nodebalancer' | 'volume' | 'firewall' | 'image';

/**
 * Replaces the tags of one object, or with `fresh` gives an object that has none yet its first. `made`
 * are the labels the account had no tag of (`missingTags`, which holds the others): their rows are
 * written first, sorted, so transactions making the same tags take their locks in one order.
 */
export async function setEntityTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
  labels: readonly string[],
  made: readonly string[],
  now: string,
  fresh = false,
): Promise<void> {
  const newTags = [...new Set(made)].sort();
  if (newTags.length > 0) await insertTags(db, String(newTags.length), { ...labelArguments(newTags), accountId, now });
  if (!fresh) await deleteEntityTags(db, accountId, entityType, entityId);
  const unique = [...new Set(labels)].sort();
  if (unique.length === 0) return;
  await insertEntityTags(db, String(unique.length), { ...labelArguments(unique), accountId, entityType, entityId });
}

/** Labels as the arguments of a prepared statement (`rowArguments`), the shape being how many there are. */
function labelArguments(labels: readonly string[]): Record<string, unknown> {
  return rowArguments(labels.map((label) => ({ label })));
}

/**
 * The shape of a statement that reads these tags: how many, and whether it holds them (`for key
 * share`, in a PostgreSQL transaction) so that a concurrent delete of a tag waits for it.
 */
function readShape(db: Kysely<Database>, labels: readonly string[]): string {
  return `${labels.length}${db.isTransaction && isPostgres(db) ? ' held' : ''}`;
}

function labelsOf(args: object, shape: string): string[] {
  return rowsOf(args, shape).map((row) => row.label as string);
}

const insertTags = preparedStatement((db, args: Record<string, unknown> & { accountId: number; now: string }, shape) =>
  db
    .insertInto('tags')
    .values(labelsOf(args, shape).map((label) => ({ account_id: args.accountId, label, created: args.now })))
    .onConflict((oc) => oc.columns(['account_id', 'label']).doUpdateSet((eb) => ({ created: eb.ref('tags.created') }))),
);

const insertEntityTags = preparedStatement(
  (db, args: Record<string, unknown> & { accountId: number; entityType: string; entityId: number }, shape) =>
    db.insertInto('entity_tags').values(
      labelsOf(args, shape).map((tag) => ({
        account_id: args.accountId,
        tag,
        entity_type: args.entityType,
        entity_id: args.entityId,
      })),
    ),
);

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

const deleteTagsOfEntity = preparedStatement((db, args: { accountId: number; entityType: string; entityId: number }) =>
  db
    .deleteFrom('entity_tags')
    .where('account_id', '=', args.accountId)
    .where('entity_type', '=', args.entityType)
    .where('entity_id', '=', args.entityId),
);

export async function deleteEntityTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
): Promise<void> {
  await deleteTagsOfEntity(db, '', { accountId, entityType, entityId });
}

/** `et` (an entity_tags row) is an object the scope may see. */
const visibleObject = (scope: AccountScope) => grantedToEntityIn(scope, 'et.entity_type', 'et.entity_id');

/**
 * `tags.label` is a tag the scope may see: any tag of the account for an unrestricted user; for a
 * restricted one, a tag on no object or on one it holds a grant on (its label tells nothing about
 * what it may not see).
 */
function visibleTag(scope: AccountScope): RawBuilder<SqlBool> {
  if (scope.restrictedUserId === null) return sql<SqlBool>`1 = 1`;
  const carriers = sql`select 1 from entity_tags et where et.account_id = ${scope.accountId} and et.tag = tags.label`;
  return sql<SqlBool>`(not exists (${carriers}) or exists (${carriers} and ${visibleObject(scope)}))`;
}

const TAG_FILTER: FilterSpec = {
  fields: { label: { column: 'tags.label', type: 'string' } },
  defaultOrder: { column: 'tags.label', direction: 'asc' },
  tiebreak: 'tags.label',
};

export function listTags(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<{ label: string }>> {
  const query = db
    .selectFrom('tags')
    .select('tags.label')
    .where('tags.account_id', '=', scope.accountId)
    .where(visibleTag(scope));
  return paginate(query, request, TAG_FILTER);
}

export async function tagVisible(db: Kysely<Database>, scope: AccountScope, label: string): Promise<boolean> {
  const found = await db
    .selectFrom('tags')
    .select('tags.label')
    .where('tags.account_id', '=', scope.accountId)
    .where('tags.label', '=', label)
    .where(visibleTag(scope))
    .executeTakeFirst();
  return found !== undefined;
}

const TAGGED_FILTER: FilterSpec = {
  fields: {},
  defaultOrder: { column: 'et.entity_type', direction: 'asc' },
  tiebreak: 'et.entity_id',
};

/** The objects of `types` carrying the tag that the scope may see, by type, then id. */
export function listTaggedEntities(
  db: Kysely<Database>,
  scope: AccountScope,
  label: string,
  types: readonly TaggedEntityType[],
  request: PageRequest,
): Promise<Page<{ entity_type: string; entity_id: number }>> {
  const query = db
    .selectFrom('entity_tags as et')
    .select(['et.entity_type', 'et.entity_id'])
    .where('et.account_id', '=', scope.accountId)
    .where('et.tag', '=', label)
    .where('et.entity_type', 'in', [...types])
    .where(visibleObject(scope));
  return paginate(query, request, TAGGED_FILTER);
}

/** How many tags the account has. */
export function countTags(db: Kysely<Database>, accountId: number): Promise<number> {
  return countRows(db.selectFrom('tags').where('account_id', '=', accountId));
}

/**
 * Which of `labels` the account has no tag of, each once. On PostgreSQL, in a transaction, the tags
 * it has are held until the transaction ends (`for key share`, as a foreign key holds what it
 * points at): a concurrent delete of one waits, then takes off what this transaction tagged with it;
 * transactions tagging with the same tags do not wait for one another.
 */
export async function missingTags(db: Kysely<Database>, accountId: number, labels: readonly string[]): Promise<string[]> {
  const unique = [...new Set(labels)].sort();
  if (unique.length === 0) return [];
  const found = await presentTags(db, readShape(db, unique), { ...labelArguments(unique), accountId });
  const present = new Set(found.map((r) => r.label));
  return unique.filter((l) => !present.has(l));
}

const presentTags = preparedStatement((db, args: Record<string, unknown> & { accountId: number }, shape) => {
  const [count, held] = shape.split(' ');
  const query = db
    .selectFrom('tags')
    .select('label')
    .where('account_id', '=', args.accountId)
    .where('label', 'in', labelsOf(args, count as string))
    .orderBy('label');
  return held ? query.forKeyShare() : query;
});

const linkPresent = preparedStatement(
  (db, args: Record<string, unknown> & { accountId: number; entityType: string; entityId: number }, shape) => {
    const [count, held] = shape.split(' ');
    const present = db
      .selectFrom('tags')
      .select((eb) => [
        'account_id',
        'label',
        eb.cast(eb.val(args.entityType), 'text').as('entity_type'),
        eb.cast(eb.val(args.entityId), 'integer').as('entity_id'),
      ])
      .where('account_id', '=', args.accountId)
      .where('label', 'in', labelsOf(args, count as string))
      .orderBy('label');
    return db
      .insertInto('entity_tags')
      .columns(['account_id', 'tag', 'entity_type', 'entity_id'])
      .expression(held ? present.forKeyShare() : present)
      .returning('tag');
  },
);

/**
 * Puts the tags of these labels the account has on an object that carries none yet, in one
 * statement, holding them as `missingTags` does; returns the labels it put.
 */
export async function linkPresentTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
  labels: readonly string[],
): Promise<Set<string>> {
  const unique = [...new Set(labels)].sort();
  if (unique.length === 0) return new Set();
  const rows = await linkPresent(db, readShape(db, unique), { ...labelArguments(unique), accountId, entityType, entityId });
  return new Set(rows.map((row) => row.tag));
}

/**
 * Makes the account's tag if it has none of this label. Either way the tag's row is written, which
 * holds it until the transaction ends: a concurrent delete of the tag waits, and then takes what
 * this one tagged with it.
 */
export async function putTag(db: Kysely<Database>, accountId: number, label: string, now: string): Promise<void> {
  await db
    .insertInto('tags')
    .values({ account_id: accountId, label, created: now })
    .onConflict((oc) => oc.columns(['account_id', 'label']).doUpdateSet((eb) => ({ created: eb.ref('tags.created') })))
    .execute();
}

/** Tags objects with an existing tag; those that carry it already are left as they are. */
export async function addEntityTags(
  db: Kysely<Database>,
  accountId: number,
  label: string,
  entityType: TaggedEntityType,
  entityIds: readonly number[],
): Promise<void> {
  const unique = [...new Set(entityIds)];
  if (unique.length === 0) return;
  await db
    .insertInto('entity_tags')
    .values(unique.map((entity_id) => ({ account_id: accountId, tag: label, entity_type: entityType, entity_id })))
    .onConflict((oc) => oc.columns(['account_id', 'entity_type', 'entity_id', 'tag']).doNothing())
    .execute();
}

/**
 * Deletes the tag (the row first: that waits for a transaction tagging with it, see `putTag` and
 * `missingTags`) and
 * takes it off every object; false when the account has no such tag.
 */
export async function deleteTagEverywhere(db: Kysely<Database>, accountId: number, label: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('tags')
    .where('account_id', '=', accountId)
    .where('label', '=', label)
    .returning('label')
    .executeTakeFirst();
  if (!deleted) return false;
  await db.deleteFrom('entity_tags').where('account_id', '=', accountId).where('tag', '=', label).execute();
  return true;
}
