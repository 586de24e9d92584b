import { lockRows } from '../../db/row-locks.ts';
import type { ZoneRecord } from '../../dns/zone.ts';
import type { JobHandler } from '../../jobs/handler.ts';
import { releaseDedupeKey } from '../../jobs/queue.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { egressGateFor } from '../networking/egress.service.ts';
import { DEFAULT_SECONDS } from './dns-timing.ts';
import { type DomainRow, findDomainById } from './domain.repository.ts';
import { isActiveSlave, REFRESH_SLAVE_JOB, scheduleSlaveRefresh, scheduleZoneRender } from './domain-change.ts';
import { checkMasters, type MasterCheck } from './master-check.ts';
import { findSlaveZone, putSlaveZone } from './slave-zone.repository.ts';
import { slaveCopy } from './zone-model.ts';

/** The check's result, with the domain's serial when it started: any change since makes it stale. */
interface Checked {
  serial: number;
  check: MasterCheck;
}

/**
 * When to check again and how long a copy lasts without a good check: the domain's own values where
 * set, else the SOA's of its copy (the master's), else the defaults.
 */
function timingOf(domain: DomainRow, copy: readonly ZoneRecord[] | null) {
  const soa = copy?.[0]?.type === 'SOA' ? copy[0].data : undefined;
  const pick = (own: number, fromSoa: number | undefined, fallback: number) => (own || fromSoa || fallback) * 1000;
  return {
    refreshMs: pick(domain.refresh_sec, soa?.refresh, DEFAULT_SECONDS.refresh_sec),
    retryMs: pick(domain.retry_sec, soa?.retry, DEFAULT_SECONDS.retry_sec),
    expireMs: pick(domain.expire_sec, soa?.expire, DEFAULT_SECONDS.expire_sec),
  };
}

/**
 * A slave domain's recurring check of its masters: before the transaction, the SOA serial of the
 * first master that answers and, when newer than the copy's, the zone by AXFR; then the copy and
 * the check's outcome are written, the zone rendered if it changed, and the next check queued (after
 * the refresh time, or the retry time when no master answered). A copy is served until the last good
 * check plus the expire time. It ends when the domain is deleted, disabled or made a master.
 */
const refreshSlave: JobHandler = {
  kind: REFRESH_SLAVE_JOB,
  parallel: true,
  async prepare({ ctx, payload }): Promise<Checked | null> {
    const domain = await findDomainById(ctx.db, Number(payload.domain_id));
    if (!isActiveSlave(domain)) return null;
    const copy = slaveCopy(domain, await findSlaveZone(ctx.db, domain.id));
    const serial = copy?.[0]?.type === 'SOA' ? copy[0].data.serial : null;
    const masters = JSON.parse(domain.master_ips) as string[];
    return {
      serial: domain.serial,
      check: await checkMasters(ctx.config, domain.domain, masters, serial, egressGateFor(ctx, domain.account_id)),
    };
  },
  async run({ trx, ctx, job, payload, prepared }) {
    const id = Number(payload.domain_id);
    await lockRows(trx, 'domains', 'id', [id]);
    const domain = await findDomainById(trx, id);
    if (!isActiveSlave(domain)) return;
    await releaseDedupeKey(trx, job.id);
    const checked = prepared as Checked | null;
    const nowMs = ctx.clock.nowMs();
    if (checked?.serial !== domain.serial) {
      // The domain changed while its masters were asked (other masters, another name): ask again.
      await scheduleSlaveRefresh(trx, ctx, domain, nowMs);
      return;
    }
    const key = { domain_id: domain.id, account_id: domain.account_id };
    const now = toTimestamp(nowMs);
    const { check } = checked;
    if (check.kind === 'failed') {
      ctx.log.warn({ domain: domain.domain, error: check.error }, 'slave domain: no master answered');
      await putSlaveZone(trx, key, { last_attempt: now, last_error: check.error });
      const { retryMs } = timingOf(domain, slaveCopy(domain, await findSlaveZone(trx, domain.id)));
      await scheduleSlaveRefresh(trx, ctx, domain, nowMs + retryMs);
      return;
    }
    const copy = check.kind === 'transferred' ? check.records : slaveCopy(domain, await findSlaveZone(trx, domain.id));
    const { refreshMs, expireMs } = timingOf(domain, copy);
    const good = {
      master: check.master,
      checked: now,
      expires: toTimestamp(nowMs + expireMs),
      last_attempt: now,
      last_error: null,
    };
    if (check.kind === 'transferred') {
      const soa = check.records[0];
      ctx.log.info(
        { domain: domain.domain, master: check.master, records: check.records.length },
        'slave domain: zone transferred',
      );
      await putSlaveZone(trx, key, {
        ...good,
        origin: domain.domain,
        serial: soa?.type === 'SOA' ? soa.data.serial : null,
        records: JSON.stringify(check.records),
        transferred: now,
      });
      await scheduleZoneRender(trx, ctx, domain);
    } else {
      await putSlaveZone(trx, key, good);
    }
    await scheduleSlaveRefresh(trx, ctx, domain, nowMs + refreshMs);
  },
};

export const slaveJobs: readonly JobHandler[] = [refreshSlave];
