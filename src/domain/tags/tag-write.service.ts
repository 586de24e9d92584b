import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { entityFor } from '../account/entity-access.ts';
import { type Principal, scopeOf } from '../account/principal.ts';
import { taggedKinds } from '../entity-kinds.ts';
import type { TaggedEntityType } from './tag.repository.ts';
import { addEntityTags, deleteTagEverywhere, putTag } from './tag.repository.ts';
import type { CreateTag, Tag } from './tag.schema.ts';
import { assertRoomForTags } from './tag.service.ts';
import { ABSENT_KINDS } from './tagged-kinds.ts';

/**
 * Makes a tag (the route admits unrestricted users only) and tags the objects the body names with
 * it; a tag that exists already is kept and tags them too. Every named object must be the caller's
 * to change, or nothing is made or tagged. Objects are locked (in id order) before the tag.
 */
export async function createTag(ctx: Context, principal: Principal, body: CreateTag): Promise<Tag> {
  for (const { field, what } of ABSENT_KINDS) {
    const id = body[field]?.[0];
    if (id !== undefined) throw fail.badRequest(`${what} ${id} does not exist: this service has no ${what}s`, `${field}[0]`);
  }
  const scope = scopeOf(principal);
  return inTransaction(ctx.db, async (trx) => {
    for (const kind of taggedKinds()) {
      const { field } = kind.tagging;
      const named = [...(body[field] ?? []).entries()].sort(([, a], [, b]) => a - b);
      for (const [i, id] of named) {
        await entityFor(trx, kind, scope, id, 'read_write', {
          what: `${kind.type} ${id}`,
          missing: () =>
            fail.badRequest(`${kind.tagging.noun} ${id} does not exist or is not available to you`, `${field}[${i}]`),
        });
      }
    }
    await assertRoomForTags(trx, principal.accountId, [body.label], ctx.config.limitTags, 'label');
    await putTag(trx, principal.accountId, body.label, toTimestamp(ctx.clock.nowMs()));
    for (const kind of taggedKinds()) {
      const ids = body[kind.tagging.field] ?? [];
      await addEntityTags(trx, principal.accountId, body.label, kind.type as TaggedEntityType, ids);
    }
    return { label: body.label };
  });
}

/** Takes the tag off every object that carries it (of any kind) and deletes it. */
export async function deleteTag(ctx: Context, principal: Principal, label: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    if (!(await deleteTagEverywhere(trx, principal.accountId, label))) throw fail.notFound();
  });
}
