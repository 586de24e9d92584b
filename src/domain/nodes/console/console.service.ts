import type { MachineConsole } from '../../../compute/driver.ts';
import type { Context } from '../../../context.ts';
import { fail } from '../../../errors.ts';
import { randomHex } from '../../../random.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { type AccountScope, type Principal, scopeOf } from '../../account/principal.ts';
import { hashToken } from '../../profile/token.service.ts';
import { machineKey } from '../compute/compute-keys.ts';
import type { NodeRow } from '../node.repository.ts';
import { nodeFor } from '../node-access.ts';
import { deleteExpiredConsoleTickets, insertConsoleTicket, takeConsoleTicket } from './console-ticket.repository.ts';

/** How long a ticket opens the console: enough to connect, and little use to whoever finds it later in a log. */
export const CONSOLE_TICKET_MS = 30_000;

export interface ConsoleTicket {
  ticket: string;
  url: string;
  expires: string;
}

/** Who opens a console: a token's principal, or the bearer of a ticket. */
export interface ConsoleCaller {
  principal: Principal | null;
  ticket: string | undefined;
}

/** The node's console, or why there is none: nodes are simulated, or its machine is not running. */
function consoleOf(ctx: Context, node: NodeRow): MachineConsole {
  if (!ctx.compute)
    throw fail.badRequest('This server simulates nodes; there is no console (CUMULO_COMPUTE=qemu runs real ones)');
  const machineConsole = ctx.compute.console(machineKey(node.id));
  if (!machineConsole && node.host !== null) {
    throw fail.badRequest(
      `The node runs on compute host ${node.host}, whose agent holds its console: not reachable from this server yet`,
    );
  }
  if (!machineConsole) throw fail.badRequest(`The node is ${node.status}; it has a console only while its machine runs`);
  return machineConsole;
}

/**
 * A single-use ticket that opens the node's console over a WebSocket (`url`, under `apiBase`) within
 * CONSOLE_TICKET_MS, for callers that cannot send a token there: browsers, and anything that should
 * not put a long-lived token in a URL. Needs read_write on the node, as the node's other actions do.
 */
export async function issueConsoleTicket(
  ctx: Context,
  principal: Principal,
  nodeId: number,
  apiBase: string,
): Promise<ConsoleTicket> {
  const node = await nodeFor(ctx.db, scopeOf(principal), nodeId, 'read_write');
  consoleOf(ctx, node);
  const ticket = randomHex(ctx.random, 32);
  const now = ctx.clock.nowMs();
  const expiresAt = now + CONSOLE_TICKET_MS;
  await deleteExpiredConsoleTickets(ctx.db, now);
  await insertConsoleTicket(ctx.db, {
    ticket_hash: hashToken(ticket),
    node_id: node.id,
    account_id: principal.accountId,
    user_id: principal.userId,
    restricted: principal.restricted ? 1 : 0,
    token_id: principal.tokenId,
    expires_at: expiresAt,
  });
  const wsBase = apiBase.replace(/\/+$/, '').replace(/^http/, 'ws');
  return { ticket, url: `${wsBase}/node/instances/${node.id}/console/connect?ticket=${ticket}`, expires: toTimestamp(expiresAt) };
}

/** Spends a ticket on the node it was issued for: the scope of whoever asked for it. */
async function scopeOfTicket(ctx: Context, ticket: string, nodeId: number): Promise<AccountScope> {
  const again = `ask for another with POST /v4/node/instances/${nodeId}/console`;
  const row = await takeConsoleTicket(ctx.db, hashToken(ticket));
  if (!row) throw fail.unauthorized(`Unknown or already used console ticket; ${again}`);
  if (row.expires_at <= ctx.clock.nowMs())
    throw fail.unauthorized(`The console ticket expired at ${toTimestamp(row.expires_at)}; ${again}`);
  if (row.node_id !== nodeId) throw fail.forbidden(`The console ticket is for node ${row.node_id}, not ${nodeId}`);
  return { accountId: row.account_id, restrictedUserId: row.restricted ? row.user_id : null };
}

/**
 * The console a connection attaches to. A token's principal needs read_write on the node; a ticket is
 * spent (whether or not the rest succeeds) and its issuer's grants are checked again as they are now.
 */
export async function openConsole(ctx: Context, caller: ConsoleCaller, nodeId: number): Promise<MachineConsole> {
  let scope: AccountScope;
  if (caller.principal) scope = scopeOf(caller.principal);
  else if (caller.ticket !== undefined) scope = await scopeOfTicket(ctx, caller.ticket, nodeId);
  else throw fail.badRequest(`Send a ticket from POST /v4/node/instances/${nodeId}/console, or a token`, 'ticket');
  return consoleOf(ctx, await nodeFor(ctx.db, scope, nodeId, 'read_write'));
}
