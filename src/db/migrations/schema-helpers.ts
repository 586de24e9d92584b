import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { DbKind } from '../database.ts';

export type MigrationDb = Kysely<unknown>;

/** Adds an auto-incrementing integer primary key named `name`, the way each database spells it. */
export function withSerialKey<T extends string>(
  table: CreateTableBuilder<T, never>,
  kind: DbKind,
  name = 'id',
): CreateTableBuilder<T, never> {
  return kind === 'postgres'
    ? table.addColumn(name, 'serial', (c) => c.primaryKey())
    : table.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Epoch milliseconds need 64 bits. */
export function bigint(kind: DbKind): 'bigint' | 'integer' {
  return kind === 'postgres' ? 'bigint' : 'integer';
}

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
