import { sql } from 'kysely';
import type { MigrationDb } from './schema-helpers.ts';

/**
 * When a user's password was set and when it last signed in through the sign-in page (clients
 * read both on a user). A password set before this was recorded takes the user's creation time,
 * the earliest it can have been set: it is not null, since the user has one.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_created', 'text').execute();
  await db.schema.alterTable('users').addColumn('last_login', 'text').execute();
  await sql`update users set password_created = created where password_hash is not null`.execute(db);
}
