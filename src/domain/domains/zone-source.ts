import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { isListedAddress } from '../../dns/address-list.ts';
import { plainName } from '../../dns/names.ts';
import type { Zone, ZoneSource } from '../../dns/zone.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { type DomainRow, findDomainNamed, findServedDomain } from './domain.repository.ts';
import { isActiveSlave, scheduleSlaveRefresh } from './domain-change.ts';
import { findAllRecords } from './record.repository.ts';
import { findSlaveZone } from './slave-zone.repository.ts';
import { cachedZone } from './zone-cache.ts';
import { slaveCopy, slaveZoneOf, zoneOf } from './zone-model.ts';

/** The name itself and every name it is under, longest first: `a.b.c` gives `a.b.c`, `b.c`, `c`. */
function namesAbove(name: string): string[] {
  const labels = plainName(name).split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter((n) => n !== '');
}

/**
 * The zone an active domain has now: a master's built from its records, a slave's copy of its
 * master's zone (null before its first transfer); null for a disabled domain.
 */
export async function zoneOfDomain(
  db: Kysely<Database>,
  config: Pick<Config, 'dnsNameservers'>,
  domain: DomainRow,
): Promise<Zone | null> {
  if (domain.status !== 'active') return null;
  if (domain.type === 'master') {
    return zoneOf(domain, await findAllRecords(db, domain.account_id, domain.id), config.dnsNameservers);
  }
  const copy = slaveCopy(domain, await findSlaveZone(db, domain.id));
  return copy ? slaveZoneOf(domain, copy) : null;
}

/**
 * The zones the nameserver serves, read from the database at each question: active master domains
 * of every account, as they are now (not as last rendered), and active slave domains' copies of
 * their masters' zones until they expire. A NOTIFY from a slave domain's master checks it at once.
 */
export function databaseZoneSource(ctx: Pick<Context, 'db' | 'config' | 'clock' | 'wakeWorker'>): ZoneSource {
  return {
    async notified(zone: string, address: string): Promise<boolean> {
      return inTransaction(ctx.db, async (trx) => {
        const domain = await findDomainNamed(trx, plainName(zone));
        if (!isActiveSlave(domain) || !isListedAddress(JSON.parse(domain.master_ips) as string[], address)) return false;
        await scheduleSlaveRefresh(trx, ctx, domain);
        return true;
      });
    },
    async zoneFor(name: string): Promise<Zone | null> {
      const names = namesAbove(name);
      if (names.length === 0) return null;
      // The domain and its records from one snapshot: a change committed between the two reads cannot mix in.
      return ctx.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const domain = await findServedDomain(trx, names, toTimestamp(ctx.clock.nowMs()));
          if (!domain) return null;
          if (domain.type !== 'master') return zoneOfDomain(trx, ctx.config, domain);
          return cachedZone(ctx.db, domain, () => zoneOfDomain(trx, ctx.config, domain));
        });
    },
  };
}
