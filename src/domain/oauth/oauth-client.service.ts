import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import type { Actor } from '../account/principal.ts';
import { type EntityRef, recordEvent } from '../events/event.service.ts';
import { forgetCachedTokens, hashToken } from '../profile/token.service.ts';
import {
  deleteClientRow,
  findClient,
  insertClient,
  listClients,
  type OAuthClientRow,
  updateClientRow,
} from './oauth-client.repository.ts';
import { type CreateOAuthClient, type OAuthClient, REDACTED_SECRET, type UpdateOAuthClient } from './oauth-client.schema.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where the authorization server may send a user back with a code (RFC 6749 3.1.2, RFC 8252 7.3):
 * an absolute https URL, or http to a loopback address (a native app listening on the machine);
 * never with a fragment. The URL is kept as given.
 */
export function checkRedirectUri(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail.badRequest('Must be an absolute URL', 'redirect_uri');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw fail.badRequest('Must be an https URL, or http to localhost, 127.0.0.1 or [::1]', 'redirect_uri');
  }
  if (text.includes('#')) throw fail.badRequest('Must not have a fragment (#...)', 'redirect_uri');
  if (url.username || url.password) throw fail.badRequest('Must not hold a user name or password', 'redirect_uri');
  return text;
}

function clientRowToClient(row: OAuthClientRow, secret?: string): OAuthClient {
  return {
    id: row.id,
    label: row.label,
    redirect_uri: row.redirect_uri,
    public: row.public === 1,
    status: row.status as OAuthClient['status'],
    secret: secret ?? REDACTED_SECRET,
    thumbnail_url: null,
  };
}

/** A client in an event: its id is text, which an event's integer entity id cannot hold; the URL names it. */
function entityOf(row: OAuthClientRow): EntityRef {
  return { id: null, type: 'oauth_client', label: row.label, url: `/v4/account/oauth-clients/${row.id}` };
}

async function clientFor(db: Kysely<Database>, accountId: number, id: string): Promise<OAuthClientRow> {
  const row = await findClient(db, accountId, id);
  if (!row) throw fail.notFound();
  return row;
}

/** A confidential client's secret: 64 hex characters, shown once; only its hash is kept. */
function newSecret(ctx: Context): { secret: string; hash: string } {
  const secret = randomHex(ctx.random, 32);
  return { secret, hash: hashToken(secret) };
}

export async function getClients(ctx: Context, accountId: number, request: PageRequest): Promise<Page<OAuthClient>> {
  return mapPage(await listClients(ctx.db, accountId, request), (row) => clientRowToClient(row));
}

export async function getClient(ctx: Context, accountId: number, id: string): Promise<OAuthClient> {
  return clientRowToClient(await clientFor(ctx.db, accountId, id));
}

/** A new client; a confidential one (the default) gets a secret, which this answer alone shows. */
export async function createClient(ctx: Context, actor: Actor, body: CreateOAuthClient): Promise<OAuthClient> {
  const redirectUri = checkRedirectUri(body.redirect_uri);
  const isPublic = body.public === true;
  const secret = isPublic ? null : newSecret(ctx);
  const now = toTimestamp(ctx.clock.nowMs());
  const id = randomHex(ctx.random, 10);
  const row = await inTransaction(ctx.db, async (trx) => {
    const created = await insertClient(trx, {
      id,
      account_id: actor.accountId,
      label: body.label,
      redirect_uri: redirectUri,
      public: isPublic ? 1 : 0,
      secret_hash: secret?.hash ?? null,
      status: 'active',
      created: now,
      updated: now,
    });
    await recordEvent(trx, ctx, actor, { action: 'oauth_client_create', entity: entityOf(created) });
    return created;
  });
  return clientRowToClient(row, secret?.secret ?? '');
}

/**
 * Changes what the body names, under the client's lock. A client made public loses its secret;
 * one made confidential has none until its secret is reset.
 */
export async function updateClient(ctx: Context, actor: Actor, id: string, body: UpdateOAuthClient): Promise<OAuthClient> {
  const redirectUri = body.redirect_uri === undefined ? undefined : checkRedirectUri(body.redirect_uri);
  return inTransaction(ctx.db, async (trx) => {
    const current = await clientFor(trx, actor.accountId, id);
    const isPublic = body.public ?? current.public === 1;
    const row = await updateClientRow(trx, actor.accountId, id, {
      label: body.label,
      redirect_uri: redirectUri,
      public: isPublic ? 1 : 0,
      ...(isPublic ? { secret_hash: null } : {}),
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    await recordEvent(trx, ctx, actor, { action: 'oauth_client_update', entity: entityOf(row) });
    return clientRowToClient(row);
  });
}

/** A new secret for a confidential client; the old one stops working at once. */
export async function resetClientSecret(ctx: Context, actor: Actor, id: string): Promise<OAuthClient> {
  return inTransaction(ctx.db, async (trx) => {
    const current = await clientFor(trx, actor.accountId, id);
    if (current.public === 1) throw fail.badRequest('A public client has no secret; it proves itself with PKCE', 'public');
    const secret = newSecret(ctx);
    const row = await updateClientRow(trx, actor.accountId, id, {
      secret_hash: secret.hash,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    await recordEvent(trx, ctx, actor, { action: 'oauth_client_secret_reset', entity: entityOf(row) });
    return clientRowToClient(row, secret.secret);
  });
}

/** Removes a client; its apps and every token issued through it go with it (foreign keys), at once. */
export async function deleteClient(ctx: Context, actor: Actor, id: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await clientFor(trx, actor.accountId, id);
    await deleteClientRow(trx, actor.accountId, id);
    await recordEvent(trx, ctx, actor, { action: 'oauth_client_delete', entity: entityOf(row) });
  });
  await forgetCachedTokens(ctx);
}
