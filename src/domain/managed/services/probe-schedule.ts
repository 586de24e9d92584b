import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { enqueueJob } from '../../../jobs/queue.ts';

export const PROBE_JOB = 'managed.probe';

/** How often a change (update, enable) may have a service probed off its schedule, on the service clock. */
export const REPROBE_EVERY_MS = 60_000;

/**
 * The worker runs at most a few probes of one account at once (src/jobs/worker.ts), so that one
 * account's slow services cannot take every slot from the others.
 */
const concurrencyKeyOf = (accountId: number) => `account:${accountId}`;

/**
 * Queues a service's next probe (one at a time: a probe already queued is brought forward to `atMs`
 * if later). Call it in the transaction of the change that asks for it.
 */
export async function scheduleProbe(
  db: Kysely<Database>,
  ctx: Pick<Context, 'clock' | 'wakeWorker'>,
  service: { id: number; account_id: number },
  atMs: number = ctx.clock.nowMs(),
): Promise<void> {
  await enqueueJob(db, ctx.clock, {
    kind: PROBE_JOB,
    accountId: service.account_id,
    payload: { service_id: service.id },
    runAt: atMs,
    dedupeKey: `${PROBE_JOB}:${service.id}`,
    hasten: true,
    concurrencyKey: concurrencyKeyOf(service.account_id),
  });
  ctx.wakeWorker();
}

/**
 * When a change may have the service probed: at once, unless a change had it probed less than a
 * minute ago; then a minute after that one (or at the next round, if that is sooner: `scheduleProbe`
 * only brings a queued probe forward). Without this, repeated changes would probe as fast as they
 * come. Store the answer as the service's `reprobe_at`.
 */
export function reprobeAt(nowMs: number, service: { reprobe_at: number | null }): number {
  const last = service.reprobe_at;
  if (last === null) return nowMs;
  // A change's probe still waits: it will probe the settings as they are then.
  if (last > nowMs) return last;
  return Math.max(nowMs, last + REPROBE_EVERY_MS);
}
