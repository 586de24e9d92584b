import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { enqueueJob } from '../../../jobs/queue.ts';

export const PROBE_JOB = 'managed.probe';

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
