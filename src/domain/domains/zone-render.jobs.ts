import { lockRows } from '../../db/row-locks.ts';
import type { JobHandler } from '../../jobs/handler.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { findDomainById } from './domain.repository.ts';
import { RENDER_ZONE_JOB, scheduleNotify } from './domain-change.ts';
import { findZoneFile, putZoneFile } from './zone-file.repository.ts';
import { renderZoneFileJson } from './zone-file.ts';
import { zoneOfDomain } from './zone-source.ts';

/**
 * Renders an active domain's zone file (a slave's once it has a copy of its master's zone) and keeps
 * it as the domain's last rendered zone; a zone that changed is then announced to its `axfr_ips`. A disabled domain is not rendered (its last rendered zone
 * stays); a deleted one has none.
 */
export const zoneJobs: readonly JobHandler[] = [
  {
    kind: RENDER_ZONE_JOB,
    async run({ trx, ctx, payload }) {
      const id = Number(payload.domain_id);
      await lockRows(trx, 'domains', 'id', [id]);
      const domain = await findDomainById(trx, id);
      if (!domain) return;
      const zone = await zoneOfDomain(trx, ctx.config, domain);
      const soa = zone?.records[0];
      if (!zone || soa?.type !== 'SOA') return;
      const last = await findZoneFile(trx, domain.account_id, id);
      if (last?.serial === soa.data.serial) return;
      await putZoneFile(trx, {
        domain_id: id,
        account_id: domain.account_id,
        serial: soa.data.serial,
        lines: renderZoneFileJson(zone),
        rendered: toTimestamp(ctx.clock.nowMs()),
      });
      if (zone.axfrIps.length > 0) await scheduleNotify(trx, ctx, domain);
    },
  },
];
