import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import { announceChange, hearingChanges, onChange } from '../../db/change-notices.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { randomHex } from '../../random.ts';
import { normalizeTimestamp, toTimestamp } from '../../time/timestamp.ts';
import { type Actor, actorOf, type Principal } from '../account/principal.ts';
import { type EntityRef, recordEvent } from '../events/event.service.ts';
import { formatScopes, parseScopes, type ScopeSet, scopesWithin } from './scopes.ts';
import { TOKEN_EXPIRE } from './token.jobs.ts';
import {
  deleteToken as deleteTokenRow,
  deleteTokensById,
  findToken,
  findTokenByHash,
  insertToken,
  listTokens,
  type TokenOwner,
  type TokenRow,
  updateTokenLabel,
  updateTokenPrefix,
} from './token.repository.ts';
import { type CreateToken, NEVER_EXPIRES, type Token, type UpdateToken } from './token.schema.ts';

/** A listed token shows at most this many leading characters ... */
const PREFIX_LENGTH = 16;
/** ... and never so many that fewer than 32 stay hidden: 128 bits of a random hex token (and of any token as random). */
const HIDDEN_LENGTH = 32;

/** The part of a token its listings show. */
export function tokenPrefix(value: string): string {
  return value.slice(0, Math.max(0, Math.min(PREFIX_LENGTH, value.length - HIDDEN_LENGTH)));
}

export function hashToken(value: string): string {
  return crypto.hash('sha256', value, 'hex');
}

/**
 * Principals of recently presented tokens, one cache per database, so that a request does not read the
 * token and user tables every time. An entry serves for at most TOKEN_CACHE_MS of wall-clock time; a
 * token's expiry is checked against the service clock on every use. Deleting a token and changing or
 * deleting a user empty the cache of this process at once and of every other process sharing a
 * PostgreSQL database before the change is answered (src/db/change-notices.ts); a process that lost
 * its listening connection forgets everything and keeps nothing until it listens again.
 * Unknown tokens are not cached.
 */
const TOKEN_CACHE_MS = 5_000;
const TOKEN_CACHE_MAX = 10_000;
/** What other processes announce when a token or user changes. */
const TOKENS_CHANGED = 'tokens';

interface CachedToken {
  principal: Principal;
  expiry: string | null;
  /** performance.now() after which the entry is read again from the database. */
  until: number;
}

class TokenCache {
  readonly entries = new Map<string, CachedToken>();
  /** Counts the times the cache was emptied: a read that began before one must not fill it after. */
  generation = 0;

  forget(): void {
    this.entries.clear();
    this.generation += 1;
  }
}

const tokenCaches = new WeakMap<Context['db'], TokenCache>();

function tokenCache(ctx: Context): TokenCache {
  let cache = tokenCaches.get(ctx.db);
  if (!cache) {
    const created = new TokenCache();
    onChange(ctx.db, TOKENS_CHANGED, () => created.forget());
    tokenCaches.set(ctx.db, created);
    cache = created;
  }
  return cache;
}

/**
 * Drops every cached principal of the context's database, in this process and, through the
 * database, in every other one: call once a change to a token or user has committed.
 */
export async function forgetCachedTokens(ctx: Context): Promise<void> {
  tokenCaches.get(ctx.db)?.forget();
  await announceChange(ctx.db, TOKENS_CHANGED);
}

function expired(ctx: Context, expiry: string | null): boolean {
  return expiry !== null && expiry <= toTimestamp(ctx.clock.nowMs());
}

/** The principal a bearer token stands for, or null when it is unknown or expired; from the cache without waiting. */
export function authenticateToken(ctx: Context, value: string): Principal | null | Promise<Principal | null> {
  if (value.length > 256) return null;
  const hash = hashToken(value);
  const cache = tokenCache(ctx);
  const cached = cache.entries.get(hash);
  if (cached && cached.until > performance.now()) return expired(ctx, cached.expiry) ? null : cached.principal;
  return readToken(ctx, cache, hash);
}

async function readToken(ctx: Context, cache: TokenCache, hash: string): Promise<Principal | null> {
  const generation = cache.generation;
  const row = await findTokenByHash(ctx.db, hash);
  const { entries } = cache;
  entries.delete(hash);
  if (!row) return null;
  const principal: Principal = Object.freeze({
    accountId: row.account_id,
    userId: row.user_id,
    username: row.username,
    restricted: row.restricted === 1,
    scopes: parseScopes(row.scopes).set,
    tokenId: row.token_id,
  });
  // Nothing is kept while the process cannot hear of changes (its listening connection is down).
  if (cache.generation === generation && hearingChanges(ctx.db)) {
    if (entries.size >= TOKEN_CACHE_MAX) entries.delete(entries.keys().next().value as string);
    entries.set(hash, { principal, expiry: row.expiry, until: performance.now() + TOKEN_CACHE_MS });
  }
  return expired(ctx, row.expiry) ? null : principal;
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
  /** The OAuth app the token is issued to; none for a personal access token. */
  appId?: number;
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
    token_prefix: tokenPrefix(value),
    created: toTimestamp(ctx.clock.nowMs()),
    expiry: spec.expiry,
    app_id: spec.appId ?? null,
  });
  return { row, value };
}

/** Schedules the removal of a token that expires, in the transaction that issues it. */
export async function scheduleTokenExpiry(db: Kysely<Database>, ctx: Context, row: TokenRow): Promise<void> {
  if (row.expiry === null) return;
  await enqueueJob(db, ctx.clock, {
    kind: TOKEN_EXPIRE,
    payload: { tokenId: row.id },
    runAt: Date.parse(`${row.expiry}Z`),
    accountId: row.account_id,
    dedupeKey: `${TOKEN_EXPIRE}:${row.id}`,
  });
}

/** Makes a stored token's listed prefix what tokenPrefix gives now: one stored under an older rule may show more. */
export async function refreshTokenPrefix(db: Kysely<Database>, value: string): Promise<void> {
  await updateTokenPrefix(db, hashToken(value), tokenPrefix(value));
}

/** The API form; `value` only in the answer to the create, the stored prefix everywhere else. */
export function tokenRowToToken(row: TokenRow, value?: string): Token {
  return {
    id: row.id,
    scopes: row.scopes,
    created: row.created,
    label: row.label,
    token: value ?? row.token_prefix,
    expiry: row.expiry ?? NEVER_EXPIRES,
  };
}

function ownerOf(p: Principal): TokenOwner {
  return { accountId: p.accountId, userId: p.userId };
}

function entityOf(row: TokenRow): EntityRef {
  return { id: row.id, type: 'token', label: row.label, url: `/v4/profile/tokens/${row.id}` };
}

function nowStamp(ctx: Context): string {
  return toTimestamp(ctx.clock.nowMs());
}

async function ownToken(db: Kysely<Database>, ctx: Context, principal: Principal, id: number): Promise<TokenRow> {
  await lockRows(db, 'tokens', 'id', [id]);
  const row = await findToken(db, ownerOf(principal), nowStamp(ctx), id);
  if (!row) throw fail.notFound();
  return row;
}

export async function getTokens(ctx: Context, principal: Principal, request: PageRequest) {
  return mapPage(await listTokens(ctx.db, ownerOf(principal), nowStamp(ctx), request), (row) => tokenRowToToken(row));
}

export async function getToken(ctx: Context, principal: Principal, id: number): Promise<Token> {
  return tokenRowToToken(await ownToken(ctx.db, ctx, principal, id));
}

/** The stored expiry of a create request: absent or null for none, otherwise a time still to come. */
function expiryOf(ctx: Context, expiry: string | null | undefined): string | null {
  if (expiry === undefined || expiry === null) return null;
  const stored = normalizeTimestamp(expiry);
  if (stored === null) throw fail.badRequest('Must be an ISO 8601 date-time', 'expiry');
  if (Date.parse(`${stored}Z`) <= ctx.clock.nowMs()) throw fail.badRequest('Must be in the future', 'expiry');
  return stored;
}

/**
 * Creates a token for `owner` with at most the scopes of `ceiling` (the calling token's own; `*` when
 * the operator acts), and schedules its removal at expiry in the same transaction.
 */
export async function createToken(
  ctx: Context,
  actor: Actor,
  owner: TokenOwner,
  ceiling: ScopeSet,
  body: CreateToken,
): Promise<Token> {
  const scopes = parseScopes(body.scopes ?? formatScopes(ceiling));
  if (!scopesWithin(scopes.set, ceiling)) {
    throw fail.badRequest(`A token cannot have more scopes than the token that creates it (${formatScopes(ceiling)})`, 'scopes');
  }
  const expiry = expiryOf(ctx, body.expiry);
  const label = body.label ?? `token-${nowStamp(ctx).replace(/\D/g, '')}`;
  return inTransaction(ctx.db, async (trx) => {
    const { row, value } = await issueToken(trx, ctx, { ...owner, label, scopes: scopes.canonical, expiry });
    await scheduleTokenExpiry(trx, ctx, row);
    await recordEvent(trx, ctx, actor, { action: 'token_create', entity: entityOf(row) });
    return tokenRowToToken(row, value);
  });
}

/** The create request of the API: the caller's own token, at most as strong as the one it uses. */
export function createOwnToken(ctx: Context, principal: Principal, body: CreateToken): Promise<Token> {
  return createToken(ctx, actorOf(principal), ownerOf(principal), principal.scopes, body);
}

export async function updateToken(ctx: Context, principal: Principal, id: number, body: UpdateToken): Promise<Token> {
  return inTransaction(ctx.db, async (trx) => {
    const current = await ownToken(trx, ctx, principal, id);
    if (body.label === undefined) return tokenRowToToken(current);
    const row = await updateTokenLabel(trx, ownerOf(principal), id, body.label);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'token_update', entity: entityOf(row) });
    return tokenRowToToken(row);
  });
}

/** Revokes a token at once; revoking the very token of the request is allowed. */
export async function deleteToken(ctx: Context, principal: Principal, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await ownToken(trx, ctx, principal, id);
    await deleteTokenRow(trx, ownerOf(principal), id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'token_delete', entity: entityOf(row) });
  });
  await forgetCachedTokens(ctx);
}

/** Ends tokens at once, in the caller's transaction; the caller forgets cached tokens once it commits. */
export async function revokeTokens(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await deleteTokensById(db, ids);
}
