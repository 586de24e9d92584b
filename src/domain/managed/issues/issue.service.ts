import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../../db/paginate.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { operatorIn } from '../../account/principal.ts';
import { type EntityRef, recordEvent } from '../../events/event.service.ts';
import { serviceEntity } from '../services/service-entity.ts';
import { closeIssueRows, findIssue, findOpenIssuesOf, type IssueRow, insertIssue, listOpenIssues } from './issue.repository.ts';
import type { Issue } from './issue.schema.ts';

/*
 * A managed issue is opened when a probe finds a watched service down, and stays open until the
 * service is found up again (or stops being watched: disabled or deleted). Each opens a ticket,
 * which carries the issue's id; the list shows open issues, a view any of the account's.
 */

function ticketOf(row: IssueRow): EntityRef & { id: number; type: 'ticket' } {
  return { id: row.id, label: row.label, type: 'ticket', url: `/support/tickets/${row.id}` };
}

export function issueRowToIssue(row: IssueRow): Issue {
  return { id: row.id, created: row.created, entity: ticketOf(row), services: [row.service_id] };
}

export async function getOpenIssues(ctx: Context, accountId: number, request: PageRequest): Promise<Page<Issue>> {
  return mapPage(await listOpenIssues(ctx.db, accountId, request), issueRowToIssue);
}

export async function getIssue(ctx: Context, accountId: number, id: number): Promise<Issue> {
  const row = await findIssue(ctx.db, accountId, id);
  if (!row) throw fail.notFound();
  return issueRowToIssue(row);
}

interface WatchedService {
  id: number;
  account_id: number;
  label: string;
}

/** Events name the service as their secondary entity. */
const secondaryOf = (service: WatchedService) => ({ ...serviceEntity(service), id: service.id });

/**
 * Opens an issue (and its ticket, with a `ticket_create` event) for a service found down, unless
 * one is open already. Call it holding the service's lock.
 */
export async function openIssueFor(db: Kysely<Database>, ctx: Context, service: WatchedService, problem: string): Promise<void> {
  if ((await findOpenIssuesOf(db, service.id)).length > 0) return;
  const row = await insertIssue(db, {
    account_id: service.account_id,
    service_id: service.id,
    label: `${service.label} is down: ${problem}`.slice(0, 255),
    created: toTimestamp(ctx.clock.nowMs()),
    closed: null,
  });
  ctx.log.info({ issueId: row.id, serviceId: service.id, problem }, 'managed: issue opened');
  await recordEvent(db, ctx, operatorIn(service.account_id), {
    action: 'ticket_create',
    entity: ticketOf(row),
    secondary: secondaryOf(service),
    message: problem,
  });
}

/**
 * Closes a service's open issue (a `ticket_update` event says why): it recovered, or is no longer
 * watched. Call it holding the service's lock.
 */
export async function closeIssuesOf(db: Kysely<Database>, ctx: Context, service: WatchedService, why: string): Promise<void> {
  const open = await findOpenIssuesOf(db, service.id);
  await closeIssueRows(
    db,
    open.map((row) => row.id),
    toTimestamp(ctx.clock.nowMs()),
  );
  for (const row of open) {
    ctx.log.info({ issueId: row.id, serviceId: service.id, why }, 'managed: issue closed');
    await recordEvent(db, ctx, operatorIn(service.account_id), {
      action: 'ticket_update',
      entity: ticketOf(row),
      secondary: secondaryOf(service),
      message: why,
    });
  }
}
