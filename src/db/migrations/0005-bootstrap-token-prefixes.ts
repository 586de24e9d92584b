import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

/**
 * Token listings now leave at least 32 characters of a token unshown. A bootstrap token is chosen
 * by the operator and could be as short as 16 characters, which listings showed whole: the stored
 * prefixes of bootstrap tokens go. A start with CUMULO_BOOTSTRAP_TOKEN set stores its prefix anew.
 */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await sql`update tokens set token_prefix = '' where label = 'bootstrap'`.execute(db);
}
