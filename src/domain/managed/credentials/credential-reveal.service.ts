import type { Context } from '../../../context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { findCredentialAnywhere, updateCredentialRow } from './credential.repository.ts';
import type { RevealedCredential } from './credential.schema.ts';
import { open } from './sealing.ts';

/**
 * The operator reads a credential back (admin API, `cumulo admin managed reveal-credential`): the
 * only way its username and password ever leave the database. Sets `last_decrypted`, which the
 * account sees, and logs who and when without the secret.
 */
export async function revealCredential(ctx: Context, id: number): Promise<RevealedCredential> {
  const revealed = await inTransaction(ctx.db, async (trx) => {
    const row = await findCredentialAnywhere(trx, id);
    if (!row) throw fail.notFound();
    const username =
      row.username_sealed === null ? null : open(ctx, 'managed_credentials.username', row.account_id, row.username_sealed);
    const password = open(ctx, 'managed_credentials.password', row.account_id, row.password_sealed);
    const now = toTimestamp(ctx.clock.nowMs());
    const updated = await updateCredentialRow(trx, row.account_id, row.id, { last_decrypted: now });
    if (!updated) throw fail.notFound();
    return { id: row.id, account_id: row.account_id, label: updated.label, username, password, last_decrypted: now };
  });
  ctx.log.info(
    { credential_id: revealed.id, account_id: revealed.account_id, label: revealed.label, at: revealed.last_decrypted },
    'managed credential revealed to the operator',
  );
  return revealed;
}
