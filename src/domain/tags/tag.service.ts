import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockName } from '../../db/row-locks.ts';
import { fail } from '../../errors.ts';
import type { Principal } from '../account/principal.ts';
import {
  countTags,
  deleteEntityTags,
  findTagsOf,
  linkPresentTags,
  missingTags,
  setEntityTags,
  type TaggedEntityType,
} from './tag.repository.ts';

export type { TaggedEntityType } from './tag.repository.ts';

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

/**
 * Refuses tags the account does not have yet when they would take it past `limit` (CUMULO_LIMIT_TAGS),
 * in the transaction that makes them. Labels it has already cost nothing; makers of new tags take turns.
 * Returns the labels it has no tag of (to be made); those it has are held (`missingTags`).
 */
export async function assertRoomForTags(
  db: Kysely<Database>,
  accountId: number,
  labels: readonly string[],
  limit: number,
  field: string,
): Promise<string[]> {
  if ((await missingTags(db, accountId, labels)).length === 0) return [];
  await lockName(db, `limit tags of account ${accountId}`);
  const missing = await missingTags(db, accountId, labels);
  if ((await countTags(db, accountId)) + missing.length > limit) {
    throw fail.badRequest(`An account may have at most ${limit} tags`, field);
  }
  return missing;
}

/** Tags on a new object need an unrestricted user, as the description says of every object it tags. */
export function assertMayTag(principal: Pick<Principal, 'restricted'>, tags: readonly string[] | undefined): void {
  if (tags?.length && principal.restricted) throw fail.forbidden('Unauthorized: only unrestricted users may add tags');
}

/**
 * Makes an object carry exactly these tags, creating the account's tags it does not have yet (up to
 * `limit` in all, CUMULO_LIMIT_TAGS). `fresh`: the object was made in this transaction and carries
 * none yet, so there are none to take off first, and the tags the account has are put on in one
 * statement that reads and holds them (`linkPresentTags`).
 */
export async function setTags(
  db: Kysely<Database>,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
  labels: readonly string[],
  now: string,
  limit: number,
  options: { fresh?: boolean } = {},
): Promise<void> {
  if (options.fresh) {
    const linked = await linkPresentTags(db, accountId, entityType, entityId, labels);
    const rest = labels.filter((label) => !linked.has(label));
    if (rest.length === 0) return;
    const made = await assertRoomForTags(db, accountId, rest, limit, 'tags');
    await setEntityTags(db, accountId, entityType, entityId, rest, made, now, true);
    return;
  }
  const made = await assertRoomForTags(db, accountId, labels, limit, 'tags');
  await setEntityTags(db, accountId, entityType, entityId, labels, made, now);
}

/**
 * Gives an object these tags when they are not already its own; a restricted user may not change
 * an object's tags (the reference's rule). Whether they changed.
 */
export async function retag(
  db: Kysely<Database>,
  restricted: boolean,
  accountId: number,
  entityType: TaggedEntityType,
  entityId: number,
  labels: readonly string[],
  now: string,
  limit: number,
): Promise<boolean> {
  const current = (await findTagsOf(db, accountId, entityType, [entityId])).get(entityId) ?? [];
  if (sameTags(current, labels)) return false;
  if (restricted) throw fail.forbidden('Unauthorized: only unrestricted users may change tags');
  await setTags(db, accountId, entityType, entityId, labels, now, limit);
  return true;
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
