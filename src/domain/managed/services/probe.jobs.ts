import type { Context } from '../../../context.ts';
import type { JobHandler } from '../../../jobs/handler.ts';
import { releaseDedupeKey } from '../../../jobs/queue.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { egressGateFor } from '../../networking/egress.service.ts';
import { closeIssuesOf, openIssueFor } from '../issues/issue.service.ts';
import { probe } from './probe.ts';
import { down, type ProbeResult } from './probe-outcome.ts';
import { PROBE_JOB, scheduleProbe } from './probe-schedule.ts';
import { findServiceById, type ServiceRow, updateServiceRow } from './service.repository.ts';
import { probeTarget } from './service-address.ts';

/** A probe's result, with the service's probe epoch when it started: any change since makes it stale. */
interface Probed {
  epoch: number;
  result: ProbeResult;
}

const watched = (row: ServiceRow | undefined): row is ServiceRow => row !== undefined && row.status !== 'disabled';

function nextProbeAt(ctx: Context): number {
  return ctx.timing.after(ctx.config.managedProbeIntervalSec * 1000);
}

/**
 * An enabled service's recurring probe: before the transaction, a real request to its address; then
 * its status becomes ok or problem, an issue is opened when it is down (and none is open) or closed
 * when it is up, and the next probe is queued one interval later. The chain ends when the service is
 * disabled or deleted; a probe of settings changed meanwhile is dropped and the service probed again
 * when the change asked for (`reprobe_at`).
 */
const probeService: JobHandler = {
  kind: PROBE_JOB,
  parallel: true,
  async prepare({ ctx, payload }): Promise<Probed | null> {
    const row = await findServiceById(ctx.db, Number(payload.service_id));
    if (!watched(row)) return null;
    const target = probeTarget(row.service_type, row.address);
    // An address stored before today's rules were: the probe does not go out.
    const result =
      typeof target === 'string'
        ? down('unreachable')
        : await probe(target, row.timeout, row.body, egressGateFor(ctx, row.account_id));
    return { epoch: row.probe_epoch, result };
  },
  async run({ trx, ctx, job, payload, prepared }) {
    const row = await findServiceById(trx, Number(payload.service_id));
    if (!watched(row)) return;
    await releaseDedupeKey(trx, job.id);
    const probed = prepared as Probed | null;
    if (probed?.epoch !== row.probe_epoch) {
      await scheduleProbe(trx, ctx, row, Math.max(ctx.clock.nowMs(), row.reprobe_at ?? 0));
      return;
    }
    const { result } = probed;
    await updateServiceRow(trx, row.id, {
      status: result.up ? 'ok' : 'problem',
      last_probed: toTimestamp(ctx.clock.nowMs()),
      last_problem: result.problem,
    });
    if (result.up) await closeIssuesOf(trx, ctx, row, 'the service is up again');
    else await openIssueFor(trx, ctx, row, result.problem ?? 'unreachable');
    await scheduleProbe(trx, ctx, row, nextProbeAt(ctx));
  },
  async onGiveUp({ trx, ctx, payload }) {
    // The chain must not end on a failure of the database: probe again one interval later.
    const row = await findServiceById(trx, Number(payload.service_id));
    if (watched(row)) await scheduleProbe(trx, ctx, row, nextProbeAt(ctx));
  },
};

export const probeJobs: readonly JobHandler[] = [probeService];
