import { lockRows } from '../../db/row-locks.ts';
import type { JobHandler } from '../../jobs/handler.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { findDomainById } from './domain.repository.ts';
import { RENDER_ZONE_JOB } from './domain-change.ts';
import { findAllRecords } from './record.repository.ts';
import { findZoneFile, putZoneFile } from './zone-file.repository.ts';
import { renderZoneFile } from './zone-file.ts';
import { zoneOf } from './zone-model.ts';

/**
 * Renders an active master domain's zone file and keeps it as the domain's last rendered zone. A
 * disabled or slave domain is not rendered (its last rendered zone stays); a deleted one has none.
 */
export const zoneJobs: readonly JobHandler[] = [
  {
    kind: RENDER_ZONE_JOB,
    async run({ trx, ctx, payload }) {
      const id = Number(payload.domain_id);
      await lockRows(trx, 'domains', 'id', [id]);
      const domain = await findDomainById(trx, id);
      if (domain?.type !== 'master' || domain.status !== 'active') return;
      const last = await findZoneFile(trx, domain.account_id, id);
      if (last && last.serial >= domain.serial) return;
      const records = await findAllRecords(trx, domain.account_id, id);
      const lines = renderZoneFile(zoneOf(domain, records, ctx.config.dnsNameservers));
      await putZoneFile(trx, {
        domain_id: id,
        account_id: domain.account_id,
        serial: domain.serial,
        lines: JSON.stringify(lines),
        rendered: toTimestamp(ctx.clock.nowMs()),
      });
    },
  },
];
