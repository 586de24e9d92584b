import type { Context } from '../../../context.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { getAccount } from '../../account/account.service.ts';
import type { ManagedSshKey, RevealedSshKey } from './credential.schema.ts';
import { findManagedSshKey, insertManagedSshKeyIfAbsent, type ManagedSshKeyRow } from './managed-ssh-key.repository.ts';
import { ed25519KeyPair, openSshPrivateKey, openSshPublicKey } from './openssh-key.ts';
import { open, seal } from './sealing.ts';

/** The account's key pair as stored: made now if it has none (of requests racing to make it, one stores its pair). */
async function keyPairOf(ctx: Context, accountId: number): Promise<ManagedSshKeyRow> {
  const known = await findManagedSshKey(ctx.db, accountId);
  if (known) return known;
  const { euuid } = await getAccount(ctx, accountId);
  // The service's random source: the operating system's, or with CUMULO_SEED the seeded stream, so a
  // seeded run answers the same key every time (as it does the same tokens).
  const pair = ed25519KeyPair(ctx.random.bytes(32));
  const comment = `managed@${euuid}`;
  const privateKey = openSshPrivateKey(pair, comment, ctx.random.bytes(4));
  await insertManagedSshKeyIfAbsent(ctx.db, {
    account_id: accountId,
    public_key: openSshPublicKey(pair, comment),
    private_key_sealed: seal(ctx, 'managed_ssh_keys.private_key', accountId, privateKey),
    created: toTimestamp(ctx.clock.nowMs()),
  });
  // Every racer answers with the pair that was stored, its own or another's.
  const stored = await findManagedSshKey(ctx.db, accountId);
  if (!stored) throw new Error(`the managed SSH key of account ${accountId} was not stored`);
  return stored;
}

/**
 * The account's managed SSH public key: an ed25519 pair (node:crypto) made on the first request and
 * the same ever after. Its comment names the account by its euuid (`managed@<euuid>`), which is
 * unique and never changes; the private key is kept sealed like credentials.
 */
export async function getManagedSshKey(ctx: Context, accountId: number): Promise<ManagedSshKey> {
  return { ssh_key: (await keyPairOf(ctx, accountId)).public_key };
}

/**
 * The operator reads the account's managed SSH key pair back (admin API, `cumulo admin managed
 * reveal-ssh-key`), made now if the account never asked for it: the private key is what lets the
 * operator's staff log in to nodes that hold the public one. Logged without the key.
 */
export async function revealManagedSshKey(ctx: Context, accountId: number): Promise<RevealedSshKey> {
  const row = await keyPairOf(ctx, accountId);
  const privateKey = open(ctx, 'managed_ssh_keys.private_key', accountId, row.private_key_sealed);
  ctx.log.info({ account_id: accountId }, 'managed SSH private key revealed to the operator');
  return { account_id: accountId, ssh_key: row.public_key, private_key: privateKey };
}
