import type { Kysely } from 'kysely';

/**
 * Every table with its row type, for Kysely to check each query against. Empty here: each table's
 * own file fills it in by declaration merging (`declare module '.../db/database.ts' { interface
 * Database { things: ThingTable } }`), so that this layer names no group; tsc compiles every file
 * under src/, so every table is known wherever a query is checked.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging
export interface Database {}

export type Db = Kysely<Database>;
export type DbKind = 'sqlite' | 'postgres';
