import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

/** Users may have a password (scrypt), for signing in to the web console through the OAuth flow. */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();
}
