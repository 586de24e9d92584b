import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../../db/paginate.ts';
import { lockRows } from '../../../db/row-locks.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import {
  type CredentialRow,
  credentialLabelTaken,
  deleteCredentialRow,
  findCredential,
  findCredentialIds,
  insertCredential,
  listCredentials,
  updateCredentialRow,
} from './credential.repository.ts';
import type { CreateCredential, Credential, UpdateCredential, UpdateCredentialSecrets } from './credential.schema.ts';
import { seal } from './sealing.ts';

/** What the API shows of a credential: never its username or password. */
function toCredential(row: CredentialRow): Credential {
  return { id: row.id, label: row.label, last_decrypted: row.last_decrypted };
}

async function assertLabelFree(db: Kysely<Database>, accountId: number, label: string, exceptId?: number): Promise<void> {
  if (await credentialLabelTaken(db, accountId, label, exceptId)) {
    throw fail.badRequest(`Label must be unique among your managed credentials: ${label} is taken`, 'label');
  }
}

function notFound(): never {
  throw fail.notFound();
}

export async function getCredentials(ctx: Context, accountId: number, request: PageRequest): Promise<Page<Credential>> {
  return mapPage(await listCredentials(ctx.db, accountId, request), toCredential);
}

export async function getCredential(ctx: Context, accountId: number, id: number): Promise<Credential> {
  const row = await findCredential(ctx.db, accountId, id);
  return row ? toCredential(row) : notFound();
}

/** Stores a credential with its username (if given) and password sealed; the label is unique in the account. */
export async function createCredential(ctx: Context, accountId: number, body: CreateCredential): Promise<Credential> {
  const username = body.username === undefined ? null : seal(ctx, 'managed_credentials.username', accountId, body.username);
  const password = seal(ctx, 'managed_credentials.password', accountId, body.password);
  return inTransaction(ctx.db, async (trx) => {
    await assertLabelFree(trx, accountId, body.label);
    const now = toTimestamp(ctx.clock.nowMs());
    const row = await insertCredential(trx, {
      account_id: accountId,
      label: body.label,
      username_sealed: username,
      password_sealed: password,
      last_decrypted: null,
      created: now,
      updated: now,
    });
    return toCredential(row);
  });
}

/** Changes the label (nothing else: username and password have their own operation). */
export async function updateCredential(ctx: Context, accountId: number, id: number, body: UpdateCredential): Promise<Credential> {
  return inTransaction(ctx.db, async (trx) => {
    await lockRows(trx, 'managed_credentials', 'id', [id]);
    const row = (await findCredential(trx, accountId, id)) ?? notFound();
    if (body.label === undefined || body.label === row.label) return toCredential(row);
    await assertLabelFree(trx, accountId, body.label, row.id);
    const updated = await updateCredentialRow(trx, accountId, id, { label: body.label, updated: toTimestamp(ctx.clock.nowMs()) });
    return toCredential(updated ?? notFound());
  });
}

/** Replaces the password and, when one is given, the username; both sealed anew under the current key. */
export async function updateCredentialSecrets(
  ctx: Context,
  accountId: number,
  id: number,
  body: UpdateCredentialSecrets,
): Promise<void> {
  const updated = await updateCredentialRow(ctx.db, accountId, id, {
    ...(body.username === undefined
      ? {}
      : { username_sealed: seal(ctx, 'managed_credentials.username', accountId, body.username) }),
    password_sealed: seal(ctx, 'managed_credentials.password', accountId, body.password),
    updated: toTimestamp(ctx.clock.nowMs()),
  });
  if (!updated) notFound();
}

/**
 * Deletes a credential (DELETE and the reference's revoke alike): its sealed username and password
 * go with the row, and a managed service that named it no longer does (see `liveCredentialIds`).
 */
export async function removeCredential(ctx: Context, accountId: number, id: number): Promise<void> {
  if (!(await deleteCredentialRow(ctx.db, accountId, id))) notFound();
}

/**
 * For managed services, which name credentials by id: a 400 on `field` unless every id is a
 * credential of the account. In a transaction, the credentials stay locked until it ends, so one
 * deleted at the same time is either refused here or deleted after the service was written.
 */
export async function assertCredentialsOfAccount(
  db: Kysely<Database>,
  accountId: number,
  ids: readonly number[],
  field = 'credentials',
): Promise<void> {
  await lockRows(db, 'managed_credentials', 'id', ids);
  const found = new Set(await findCredentialIds(db, accountId, ids));
  const missing = [...new Set(ids)].filter((id) => !found.has(id));
  if (missing.length) throw fail.badRequest(`Not managed credentials of this account: ${missing.join(', ')}`, field);
}

/**
 * For managed services: which of the ids a service holds are still credentials of the account, in
 * the order given. A service answers with these, so a credential deleted or revoked drops out of
 * every service that named it at once, with no write to the services.
 */
export async function liveCredentialIds(db: Kysely<Database>, accountId: number, ids: readonly number[]): Promise<number[]> {
  const live = new Set(await findCredentialIds(db, accountId, ids));
  return ids.filter((id) => live.has(id));
}
