import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull } from './schema-helpers.ts';

/**
 * Single-use tickets that open a node's serial console over a WebSocket: kept in the database so
 * that any server process sharing it can take the connection. They go with their node and token.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  await db.schema
    .createTable('console_tickets')
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer', notNull)
    .addColumn('restricted', 'integer', notNull)
    .addColumn('token_id', 'integer', (c) => c.notNull().references('tokens.id').onDelete('cascade'))
    .addColumn('expires_at', bigint(kind), notNull)
    .execute();
  await db.schema.createIndex('console_tickets_expiry').on('console_tickets').column('expires_at').execute();
}
