export interface ConsoleTicketTable {
  /** SHA-256 of the ticket; the ticket itself is never kept. */
  ticket_hash: string;
  node_id: number;
  /** Who asked for the ticket: the connection acts as them, with their grants as they are when it opens. */
  account_id: number;
  user_id: number;
  restricted: number;
  token_id: number;
  /** Service-clock ms after which the ticket is refused. */
  expires_at: number;
}

declare module '../../../db/database.ts' {
  interface Database {
    console_tickets: ConsoleTicketTable;
  }
}
