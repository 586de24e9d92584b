import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { groupNodesByHost } from './node-host.repository.ts';

/**
 * The nodes grouped by the compute host their machines run on (null: this process's, without
 * agents), for work on their machines that only that host's agent can do. Nodes gone are left out.
 */
export function nodesByHost(db: Kysely<Database>, nodeIds: readonly number[]): Promise<Map<string | null, number[]>> {
  return groupNodesByHost(db, nodeIds);
}
