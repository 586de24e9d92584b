import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { deleteEntityTags, findTagsOf, setEntityTags, type TaggedEntityType } from './tag.repository.ts';

export type { TaggedEntityType } from './tag.repository.ts';
/** An object's tags as a column of the object's own query (one statement for a view). */
export { tagListColumn } from './tag.repository.ts';

/*
 * What other groups ask of tags about their own objects, in the caller's transaction. They never
 * touch the tag tables; X-Filter's `tags` field is in tag-filter.ts.
 */

/** The tags each object carries, sorted, keyed by object id. */
export function tagsOf(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityIds: readonly number[],
): Promise<Map<number, string[]>> {
  return findTagsOf(db, accountId, entityType, entityIds);
}

/** Makes an object carry exactly these tags, creating the account's tags it does not have yet. */
export function setTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
  labels: readonly string[],
  now: string,
): Promise<void> {
  return setEntityTags(db, accountId, entityType, entityId, labels, now);
}

/** Takes every tag off an object that goes away. */
export function removeTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
): Promise<void> {
  return deleteEntityTags(db, accountId, entityType, entityId);
}

/** Whether two tag lists name the same tags (order and repeats aside). */
export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((t, i) => t === y[i]);
}
