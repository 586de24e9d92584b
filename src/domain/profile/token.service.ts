import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import type { Principal } from '../account/principal.ts';
import { parseScopes } from './scopes.ts';
import { findTokenByHash, insertToken, type TokenRow } from './token.repository.ts';

export function hashToken(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex');
}

/** The principal a bearer token stands for, or null when it is unknown or expired. */
export async function authenticateToken(ctx: Context, value: string): Promise<Principal | null> {
  if (value.length > 256) return null;
  const row = await findTokenByHash(ctx.db, hashToken(value));
  if (!row) return null;
  if (row.expiry !== null && row.expiry <= toTimestamp(ctx.clock.nowMs())) return null;
  return {
    accountId: row.account_id,
    userId: row.user_id,
    username: row.username,
    restricted: row.restricted === 1,
    scopes: parseScopes(row.scopes).set,
    tokenId: row.token_id,
  };
}

export interface NewToken {
  accountId: number;
  userId: number;
  label: string;
  /** Canonical scope text (see parseScopes). */
  scopes: string;
  expiry: string | null;
  /** A chosen value (bootstrap); a random one otherwise. */
  value?: string;
}

/** Stores a token; the returned value is the only time it is ever seen. */
export async function issueToken(db: Kysely<Database>, ctx: Context, spec: NewToken): Promise<{ row: TokenRow; value: string }> {
  const value = spec.value ?? randomHex(ctx.random, 32);
  const row = await insertToken(db, {
    account_id: spec.accountId,
    user_id: spec.userId,
    label: spec.label,
    scopes: spec.scopes,
    token_hash: hashToken(value),
    token_prefix: value.slice(0, 16),
    created: toTimestamp(ctx.clock.nowMs()),
    expiry: spec.expiry,
  });
  return { row, value };
}
