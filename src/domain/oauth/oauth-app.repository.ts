import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import type { OAuthAppTable } from './oauth-app.table.ts';

export type OAuthAppRow = Selectable<OAuthAppTable>;

/** An app as its user sees it: with its client's label and address. */
export type AppView = OAuthAppRow & { label: string; redirect_uri: string };

export interface AppOwner {
  accountId: number;
  userId: number;
}

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'oauth_clients.label', type: 'string' },
    created: { column: 'oauth_apps.created', type: 'datetime' },
    expiry: { column: 'oauth_apps.expiry', type: 'datetime' },
  },
  defaultOrder: { column: 'oauth_apps.id', direction: 'asc' },
  tiebreak: 'oauth_apps.id',
};

/** The user's apps whose access has not run out at `now` (a stored timestamp). */
function liveApps(db: Kysely<Database>, owner: AppOwner, now: string) {
  return db
    .selectFrom('oauth_apps')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_apps.client_id')
    .selectAll('oauth_apps')
    .select(['oauth_clients.label', 'oauth_clients.redirect_uri'])
    .where('oauth_apps.account_id', '=', owner.accountId)
    .where('oauth_apps.user_id', '=', owner.userId)
    .where((eb) => eb.or([eb('oauth_apps.expiry', 'is', null), eb('oauth_apps.expiry', '>', now)]));
}

export function listApps(db: Kysely<Database>, owner: AppOwner, now: string, request: PageRequest): Promise<Page<AppView>> {
  return paginate(liveApps(db, owner, now), request, FILTER);
}

/** One of the user's live apps; in a transaction, locked first. */
export async function findApp(db: Kysely<Database>, owner: AppOwner, now: string, id: number): Promise<AppView | undefined> {
  await lockRows(db, 'oauth_apps', 'id', [id]);
  return liveApps(db, owner, now).where('oauth_apps.id', '=', id).executeTakeFirst();
}

/** The app of a user and client, live or not; in a transaction, locked first. */
export async function findAppOf(db: Kysely<Database>, userId: number, clientId: string): Promise<OAuthAppRow | undefined> {
  const row = await db
    .selectFrom('oauth_apps')
    .select('id')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  await lockRows(db, 'oauth_apps', 'id', [row.id]);
  return db.selectFrom('oauth_apps').selectAll().where('id', '=', row.id).executeTakeFirst();
}

export function findAppById(db: Kysely<Database>, id: number): Promise<OAuthAppRow | undefined> {
  return db.selectFrom('oauth_apps').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertApp(
  db: Kysely<Database>,
  values: { account_id: number; user_id: number; client_id: string; scopes: string; created: string; expiry: string | null },
): Promise<OAuthAppRow> {
  return db.insertInto('oauth_apps').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateApp(
  db: Kysely<Database>,
  id: number,
  values: { scopes?: string; expiry?: string | null },
): Promise<void> {
  await db.updateTable('oauth_apps').set(values).where('id', '=', id).execute();
}

/** Removes an app; its tokens, refresh tokens included, go with it (foreign keys). */
export async function deleteAppRow(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('oauth_apps').where('id', '=', id).execute();
}
