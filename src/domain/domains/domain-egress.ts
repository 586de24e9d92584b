import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { egressRefusalFor } from '../networking/egress.service.ts';
import type { DomainColumns } from './domain-rules.ts';

/**
 * A 400 naming each address the service would connect to and the egress policy refuses for the
 * account: a slave's `master_ips[i]` (asked on CUMULO_DNS_MASTER_PORT) and `axfr_ips[i]` (sent NOTIFY
 * on CUMULO_DNS_NOTIFY_PORT). Nothing connects to a master's `master_ips`, so they are kept as they
 * are; should the domain become a slave, they are checked then. The jobs that connect check again
 * when they do.
 */
export async function assertDomainEgress(
  ctx: Context,
  db: Kysely<Database>,
  accountId: number,
  columns: Pick<DomainColumns, 'type' | 'master_ips' | 'axfr_ips'>,
): Promise<void> {
  const masters = columns.type === 'slave' ? (JSON.parse(columns.master_ips) as string[]) : [];
  const lists = [
    ['master_ips', masters, ctx.config.dnsMasterPort],
    ['axfr_ips', JSON.parse(columns.axfr_ips) as string[], ctx.config.dnsNotifyPort],
  ] as const;
  const problems: ErrorItem[] = [];
  for (const [field, ips, port] of lists) {
    for (const [i, ip] of ips.entries()) {
      const reason = await egressRefusalFor(ctx, db, accountId, ip, port);
      if (reason !== null) problems.push({ field: `${field}[${i}]`, reason });
    }
  }
  if (problems.length > 0) throw fail.invalid(problems);
}
