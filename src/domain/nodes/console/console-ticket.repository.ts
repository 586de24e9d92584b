import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { ConsoleTicketTable } from './console-ticket.table.ts';

export type ConsoleTicketRow = Selectable<ConsoleTicketTable>;

export async function insertConsoleTicket(db: Kysely<Database>, values: ConsoleTicketTable): Promise<void> {
  await db.insertInto('console_tickets').values(values).execute();
}

/** Forgets the tickets nobody used in time. */
export async function deleteExpiredConsoleTickets(db: Kysely<Database>, nowMs: number): Promise<void> {
  await db.deleteFrom('console_tickets').where('expires_at', '<=', nowMs).execute();
}

/**
 * Takes a ticket: of concurrent callers with the same ticket, one gets its row and the others none.
 * The row is gone afterwards, valid or not; the caller checks its expiry.
 */
export function takeConsoleTicket(db: Kysely<Database>, ticketHash: string): Promise<ConsoleTicketRow | undefined> {
  return db.deleteFrom('console_tickets').where('ticket_hash', '=', ticketHash).returningAll().executeTakeFirst();
}
