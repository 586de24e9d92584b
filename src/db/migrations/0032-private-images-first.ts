import { sql } from 'kysely';
import type { MigrationDb } from './schema-helpers.ts';

/** Private images kept from before list ahead of the public catalog, as new ones do (PRIVATE_IMAGE_SORT). */
export async function up(db: MigrationDb): Promise<void> {
  await sql`UPDATE images SET sort = -1 WHERE account_id IS NOT NULL`.execute(db);
}
