import crypto from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ApiError, type ErrorItem, fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { entityFor } from '../account/entity-access.ts';
import { grantToCreator } from '../account/grant-entities.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { type EntityRef, recordEvent } from '../events/event.service.ts';
import type { EventAction } from '../events/event-kinds.ts';
import { getImage } from '../images/image.service.ts';
import {
  deleteStackScriptRow,
  findVisibleStackScript,
  insertStackScript,
  listVisibleStackScripts,
  type StackScriptRow,
  updateStackScriptRow,
  type VisibleStackScriptRow,
} from './stackscript.repository.ts';
import {
  ANY_IMAGE,
  type CreateStackScript,
  type StackScript,
  type UpdateStackScript,
  type UserDefinedFieldView,
} from './stackscript.schema.ts';
import type { StackScriptTable } from './stackscript.table.ts';
import { stackScriptKind } from './stackscript-kind.ts';
import { checkScriptText, type UserDefinedField } from './stackscript-udf.ts';

/** A stable avatar id for the author: the hash an avatar service keys on, from the name alone. */
function gravatarId(username: string): string {
  return crypto.createHash('md5').update(username.trim().toLowerCase()).digest('hex');
}

/** A kept field as clients read it: oneOf and manyOf spelled oneof and manyof. */
function userDefinedFieldView({ oneOf, manyOf, ...field }: UserDefinedField): UserDefinedFieldView {
  return { ...field, ...(oneOf !== undefined ? { oneof: oneOf } : {}), ...(manyOf !== undefined ? { manyof: manyOf } : {}) };
}

export function stackScriptRowToStackScript(row: VisibleStackScriptRow): StackScript {
  return {
    id: row.id,
    username: row.username,
    user_gravatar_id: gravatarId(row.username),
    label: row.label,
    description: row.description,
    ordinal: 0,
    logo_url: '',
    images: JSON.parse(row.images) as string[],
    deployments_total: row.deployments_total,
    deployments_active: row.deployments_active,
    is_public: row.is_public === 1,
    created: row.created,
    updated: row.updated,
    rev_note: row.rev_note,
    script: row.script,
    user_defined_fields: (JSON.parse(row.user_defined_fields) as UserDefinedField[]).map(userDefinedFieldView),
    mine: Number(row.mine) === 1,
  };
}

function entityOf(row: StackScriptRow): EntityRef {
  return { id: row.id, type: 'stackscript', label: row.label, url: `/v4/node/stackscripts/${row.id}` };
}

/** Public scripts of every account, plus the caller's own (none when anonymous: scope null). */
export async function getStackScripts(ctx: Context, scope: AccountScope | null, request: PageRequest) {
  return mapPage(await listVisibleStackScripts(ctx.db, scope, request), stackScriptRowToStackScript);
}

/** Another account's private script is reported missing, never forbidden. */
export async function getStackScript(ctx: Context, scope: AccountScope, id: number): Promise<StackScript> {
  const row = await findVisibleStackScript(ctx.db, scope, id);
  if (!row) throw fail.notFound();
  return stackScriptRowToStackScript(row);
}

/** Is `id` an image a script may name: a public one, a private one the caller sees, or any/all? */
async function knownImage(ctx: Context, scope: AccountScope, id: string): Promise<boolean> {
  if (id === ANY_IMAGE || ctx.catalog.image(id)) return true;
  try {
    await getImage(ctx, scope, id);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 'not_found') return false;
    throw e;
  }
}

/** The images list as stored: every id known, each once, in the order given. */
async function checkImages(ctx: Context, scope: AccountScope, images: readonly string[]): Promise<string> {
  const problems: ErrorItem[] = [];
  for (const [i, id] of images.entries()) {
    if (!(await knownImage(ctx, scope, id))) {
      problems.push({ field: `images[${i}]`, reason: `Image ${id} does not exist or is not available to you` });
    }
  }
  if (problems.length > 0) throw fail.invalid(problems);
  return JSON.stringify([...new Set(images)]);
}

export async function createStackScript(ctx: Context, principal: Principal, body: CreateStackScript): Promise<StackScript> {
  const scope = scopeOf(principal);
  const fields = checkScriptText(body.script);
  const images = await checkImages(ctx, scope, body.images);
  const now = toTimestamp(ctx.clock.nowMs());
  return inTransaction(ctx.db, async (trx) => {
    const row = await insertStackScript(trx, {
      account_id: principal.accountId,
      username: principal.username,
      label: body.label,
      description: body.description ?? '',
      images,
      script: body.script,
      rev_note: body.rev_note ?? '',
      is_public: body.is_public ? 1 : 0,
      user_defined_fields: JSON.stringify(fields),
      deployments_total: 0,
      deployments_active: 0,
      created: now,
      updated: now,
    });
    await grantToCreator(trx, scope, 'stackscript', row.id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'stackscript_create', entity: entityOf(row) });
    return stackScriptRowToStackScript({ ...row, mine: 1 });
  });
}

/**
 * A script the caller may change: its account's (404 when it cannot see it at all), and for a
 * restricted user one it holds read_write on (403 for a visible one it may not change).
 */
async function writableStackScript(db: Kysely<Database>, scope: AccountScope, id: number): Promise<VisibleStackScriptRow> {
  return entityFor(db, stackScriptKind, scope, id, 'read_write', {
    what: 'this StackScript',
    missing: () => fail.notFound(),
  });
}

/** An update's new values, checked before its transaction opens (image lookups, script parsing). */
interface CheckedUpdate {
  body: UpdateStackScript;
  images: string | undefined;
  fields: string | undefined;
}

/** The columns the update changes against the current row, and the events that tell of it. */
function changesOf(
  row: StackScriptRow,
  update: CheckedUpdate,
): { changes: Updateable<StackScriptTable>; actions: EventAction[] } {
  const { body } = update;
  if (body.is_public === false && row.is_public === 1) {
    throw fail.badRequest('A public StackScript cannot be made private again', 'is_public');
  }
  const changes: Updateable<StackScriptTable> = {};
  const actions: EventAction[] = [];
  if (body.label !== undefined && body.label !== row.label) changes.label = body.label;
  if (body.description !== undefined && body.description !== row.description) changes.description = body.description;
  if (body.rev_note !== undefined && body.rev_note !== row.rev_note) changes.rev_note = body.rev_note;
  if (update.images !== undefined && update.images !== row.images) changes.images = update.images;
  if (body.script !== undefined && body.script !== row.script) {
    changes.script = body.script;
    changes.user_defined_fields = update.fields;
    actions.push('stackscript_revise');
  }
  if (body.is_public === true && row.is_public === 0) {
    changes.is_public = 1;
    actions.push('stackscript_publicize');
  }
  if (Object.keys(changes).length > 0) actions.unshift('stackscript_update');
  return { changes, actions };
}

/**
 * Changes what the body names. Every change is a stackscript_update; a new script text is also a
 * stackscript_revise and going public a stackscript_publicize, all in the change's transaction.
 */
export async function updateStackScript(
  ctx: Context,
  principal: Principal,
  id: number,
  body: UpdateStackScript,
): Promise<StackScript> {
  const scope = scopeOf(principal);
  await writableStackScript(ctx.db, scope, id);
  const update: CheckedUpdate = {
    body,
    images: body.images === undefined ? undefined : await checkImages(ctx, scope, body.images),
    fields: body.script === undefined ? undefined : JSON.stringify(checkScriptText(body.script)),
  };
  return inTransaction(ctx.db, async (trx) => {
    const row = await writableStackScript(trx, scope, id);
    const { changes, actions } = changesOf(row, update);
    if (actions.length === 0) return stackScriptRowToStackScript(row);
    const updated = await updateStackScriptRow(trx, scope.accountId, id, { ...changes, updated: toTimestamp(ctx.clock.nowMs()) });
    for (const action of actions) await recordEvent(trx, ctx, actorOf(principal), { action, entity: entityOf(updated) });
    return stackScriptRowToStackScript({ ...updated, mine: 1 });
  });
}

/** Only private scripts may be deleted: once public, others may depend on them. */
export async function deleteStackScript(ctx: Context, principal: Principal, id: number): Promise<void> {
  const scope = scopeOf(principal);
  await inTransaction(ctx.db, async (trx) => {
    const row = await writableStackScript(trx, scope, id);
    if (row.is_public === 1) throw fail.badRequest('A public StackScript cannot be deleted');
    await deleteStackScriptRow(trx, scope.accountId, id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'stackscript_delete', entity: entityOf(row) });
  });
}
