import type { Kysely, Updateable } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { type DomainRow, updateDomainRow } from './domain.repository.ts';
import type { DomainTable } from './domain.table.ts';

export const RENDER_ZONE_JOB = 'domain.render_zone';
export const REFRESH_SLAVE_JOB = 'domain.refresh_slave';
export const NOTIFY_JOB = 'domain.notify';

/**
 * The serial after a change: the date's first serial (YYYYMMDD00) or one past the last, whichever is
 * higher, so that it keeps increasing however many changes a day brings.
 */
export function nextSerial(current: number, nowMs: number): number {
  const day = new Date(nowMs).toISOString().slice(0, 10).replaceAll('-', '');
  return Math.max(current + 1, Number(day) * 100);
}

/** Schedules rendering the domain's zone (CUMULO_DNS_RENDER_DELAY_MS from now); call it in the transaction of the change. */
export async function scheduleZoneRender(db: Kysely<Database>, ctx: Context, domain: Pick<DomainRow, 'id' | 'account_id'>) {
  // One queued render a domain is enough: it renders what is committed when it runs. Due a moment
  // later, so that the changes of that moment (a client adding records one by one) share it, instead
  // of each rendering the whole zone. A change made while a render runs waits for it (both lock the
  // domain) and then queues the next.
  await enqueueJob(db, ctx.clock, {
    kind: RENDER_ZONE_JOB,
    accountId: domain.account_id,
    payload: { domain_id: domain.id },
    runAt: ctx.clock.nowMs() + ctx.config.dnsRenderDelayMs,
    dedupeKey: `${RENDER_ZONE_JOB}:${domain.id}`,
  });
  ctx.wakeWorker();
}

/**
 * Schedules a check of a slave domain's masters (slave-refresh.jobs.ts) at `atMs`, now by default;
 * one queued a domain, which a check scheduled for sooner brings forward.
 */
export async function scheduleSlaveRefresh(
  db: Kysely<Database>,
  ctx: Pick<Context, 'clock' | 'wakeWorker'>,
  domain: Pick<DomainRow, 'id' | 'account_id'>,
  atMs: number = ctx.clock.nowMs(),
) {
  await enqueueJob(db, ctx.clock, {
    kind: REFRESH_SLAVE_JOB,
    accountId: domain.account_id,
    payload: { domain_id: domain.id },
    runAt: atMs,
    dedupeKey: `${REFRESH_SLAVE_JOB}:${domain.id}`,
    hasten: true,
  });
  ctx.wakeWorker();
}

/** Schedules NOTIFY messages to the domain's `axfr_ips` (notify.jobs.ts); call it in the transaction that rendered a new zone. */
export async function scheduleNotify(db: Kysely<Database>, ctx: Context, domain: Pick<DomainRow, 'id' | 'account_id'>) {
  await enqueueJob(db, ctx.clock, {
    kind: NOTIFY_JOB,
    accountId: domain.account_id,
    payload: { domain_id: domain.id },
    dedupeKey: `${NOTIFY_JOB}:${domain.id}`,
  });
  ctx.wakeWorker();
}

/** Whether the domain is one whose masters are to be checked. */
export function isActiveSlave(domain: Pick<DomainRow, 'type' | 'status'> | undefined): domain is DomainRow {
  return domain?.type === 'slave' && domain.status === 'active';
}

/**
 * Records a change of a (locked) domain or of its records: the domain's own changes if any, a new
 * serial, and a render of its zone, all in the caller's transaction.
 */
export async function domainChanged(
  db: Kysely<Database>,
  ctx: Context,
  domain: DomainRow,
  values: Updateable<DomainTable> = {},
): Promise<DomainRow> {
  const now = ctx.clock.nowMs();
  const updated = await updateDomainRow(db, domain.account_id, domain.id, {
    ...values,
    serial: nextSerial(domain.serial, now),
    updated: toTimestamp(now),
  });
  await scheduleZoneRender(db, ctx, updated);
  // A slave changed (its masters, its name, enabled again) checks its masters at once.
  if (isActiveSlave(updated)) await scheduleSlaveRefresh(db, ctx, updated);
  return updated;
}
