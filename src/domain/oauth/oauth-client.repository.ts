import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import type { OAuthClientTable } from './oauth-client.table.ts';

export type OAuthClientRow = Selectable<OAuthClientTable>;

/** The reference's filterable fields. */
const FILTER: FilterSpec = {
  fields: {
    label: { column: 'oauth_clients.label', type: 'string' },
    public: { column: 'oauth_clients.public', type: 'boolean' },
    // Not marked filterable by the reference: the vendor's console orders its apps by it.
    status: { column: 'oauth_clients.status', type: 'string' },
  },
  defaultOrder: { column: 'oauth_clients.created', direction: 'asc' },
  tiebreak: 'oauth_clients.id',
};

export function listClients(db: Kysely<Database>, accountId: number, request: PageRequest): Promise<Page<OAuthClientRow>> {
  const query = db.selectFrom('oauth_clients').selectAll('oauth_clients').where('oauth_clients.account_id', '=', accountId);
  return paginate(query, request, FILTER);
}

/** One of the account's clients; in a transaction, locked first so that changes to it take turns. */
export async function findClient(db: Kysely<Database>, accountId: number, id: string): Promise<OAuthClientRow | undefined> {
  await lockRows(db, 'oauth_clients', 'id', [id]);
  return db.selectFrom('oauth_clients').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function insertClient(db: Kysely<Database>, values: Insertable<OAuthClientTable>): Promise<OAuthClientRow> {
  return db.insertInto('oauth_clients').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateClientRow(
  db: Kysely<Database>,
  accountId: number,
  id: string,
  values: Updateable<OAuthClientTable>,
): Promise<OAuthClientRow> {
  return db
    .updateTable('oauth_clients')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteClientRow(db: Kysely<Database>, accountId: number, id: string): Promise<void> {
  await db.deleteFrom('oauth_clients').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Any account's client, by its public id (the OAuth exchange names it alone); in a transaction, locked first. */
export async function findClientById(db: Kysely<Database>, id: string): Promise<OAuthClientRow | undefined> {
  await lockRows(db, 'oauth_clients', 'id', [id]);
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Writes a client the installation owns: inserted once (parallel starts agree on the one row), and
 * afterwards only its redirect URI follows `values`, when it differs.
 */
export async function upsertInstallationClient(db: Kysely<Database>, values: Insertable<OAuthClientTable>): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values(values)
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ redirect_uri: values.redirect_uri, updated: values.updated })
        .where('oauth_clients.redirect_uri', '<>', values.redirect_uri),
    )
    .execute();
}
