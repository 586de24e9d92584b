import type { Context } from '../../../context.ts';
import { fail } from '../../../errors.ts';
import { SealedValueError } from '../../../secrets/secret-box.ts';

/**
 * What the managed group seals (src/secrets/secret-box.ts), each for a purpose naming the field and
 * the account, so a sealed value opens only where it was written.
 */
type Field = 'managed_credentials.username' | 'managed_credentials.password' | 'managed_ssh_keys.private_key';

type Secrets = Pick<Context, 'secrets'>;

export function seal(ctx: Secrets, field: Field, accountId: number, value: string): string {
  return ctx.secrets.seal(value, `${field} account=${accountId}`);
}

/** Opens a sealed value; a 503 saying why when this installation's keys cannot (the secret stays out of it). */
export function open(ctx: Secrets, field: Field, accountId: number, sealed: string): string {
  try {
    return ctx.secrets.open(sealed, `${field} account=${accountId}`);
  } catch (err) {
    if (err instanceof SealedValueError)
      throw fail.unavailable(`The ${field} of account ${accountId} cannot be opened: ${err.message}`);
    throw err;
  }
}
