import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { actorOf, type Principal } from '../account/principal.ts';
import { type EntityRef, recordEvent } from '../events/event.service.ts';
import {
  deleteSshKey,
  findPublicKeys,
  findSshKey,
  findSshKeyLabels,
  insertSshKey,
  type KeyOwner,
  listSshKeys,
  type SshKeyRow,
  updateSshKeyLabel,
} from './ssh-key.repository.ts';
import type { CreateSshKey, SshKey, UpdateSshKey } from './ssh-key.schema.ts';
import { normalizeSshKey, sshKeyProblem } from './ssh-public-key.ts';

export function sshKeyRowToSshKey(row: SshKeyRow): SshKey {
  return { id: row.id, label: row.label, ssh_key: row.ssh_key, created: row.created };
}

function ownerOf(p: Principal): KeyOwner {
  return { accountId: p.accountId, userId: p.userId };
}

function entityOf(row: SshKeyRow): EntityRef {
  return { id: row.id, type: 'user_ssh_key', label: row.label, url: `/v4/profile/sshkeys/${row.id}` };
}

async function ownKey(db: Kysely<Database>, principal: Principal, id: number): Promise<SshKeyRow> {
  await lockRows(db, 'ssh_keys', 'id', [id]);
  const row = await findSshKey(db, ownerOf(principal), id);
  if (!row) throw fail.notFound();
  return row;
}

export async function getSshKeys(ctx: Context, principal: Principal, request: PageRequest) {
  return mapPage(await listSshKeys(ctx.db, ownerOf(principal), request), sshKeyRowToSshKey);
}

export async function getSshKey(ctx: Context, principal: Principal, id: number): Promise<SshKey> {
  return sshKeyRowToSshKey(await ownKey(ctx.db, principal, id));
}

export async function addSshKey(ctx: Context, principal: Principal, body: CreateSshKey): Promise<SshKey> {
  const key = body.ssh_key;
  if (key === undefined) throw fail.badRequest('ssh_key is required', 'ssh_key');
  const problem = sshKeyProblem(key);
  if (problem) throw fail.badRequest(problem, 'ssh_key');
  return inTransaction(ctx.db, async (trx) => {
    const row = await insertSshKey(trx, {
      account_id: principal.accountId,
      user_id: principal.userId,
      label: body.label ?? '',
      ssh_key: normalizeSshKey(key),
      created: toTimestamp(ctx.clock.nowMs()),
    });
    await recordEvent(trx, ctx, actorOf(principal), { action: 'user_ssh_key_add', entity: entityOf(row) });
    return sshKeyRowToSshKey(row);
  });
}

export async function updateSshKey(ctx: Context, principal: Principal, id: number, body: UpdateSshKey): Promise<SshKey> {
  return inTransaction(ctx.db, async (trx) => {
    const current = await ownKey(trx, principal, id);
    if (body.label === undefined) return sshKeyRowToSshKey(current);
    const row = await updateSshKeyLabel(trx, ownerOf(principal), id, body.label);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'user_ssh_key_update', entity: entityOf(row) });
    return sshKeyRowToSshKey(row);
  });
}

export async function removeSshKey(ctx: Context, principal: Principal, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await ownKey(trx, principal, id);
    await deleteSshKey(trx, ownerOf(principal), id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'user_ssh_key_delete', entity: entityOf(row) });
  });
}

/** The labels of each user's profile SSH keys (users without keys map to an empty list). */
export async function sshKeyLabelsOf(
  db: Kysely<Database>,
  accountId: number,
  userIds: readonly number[],
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(userIds.map((id) => [id, []]));
  for (const row of await findSshKeyLabels(db, accountId, userIds)) out.get(row.user_id)?.push(row.label);
  return out;
}

/** A user's profile public keys: what `authorized_users` puts on a node. */
export function publicKeysOf(db: Kysely<Database>, accountId: number, userId: number): Promise<string[]> {
  return findPublicKeys(db, { accountId, userId });
}
