import type { Context } from '../../context.ts';
import { plainName } from '../../dns/names.ts';
import type { Zone, ZoneSource } from '../../dns/zone.ts';
import { findServedDomain } from './domain.repository.ts';
import { findAllRecords } from './record.repository.ts';
import { zoneOf } from './zone-model.ts';

/** The name itself and every name it is under, longest first: `a.b.c` gives `a.b.c`, `b.c`, `c`. */
function namesAbove(name: string): string[] {
  const labels = plainName(name).split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter((n) => n !== '');
}

/**
 * The zones the nameserver serves, read from the database at each question: active master domains
 * of every account, as they are now (not as last rendered).
 */
export function databaseZoneSource(ctx: Pick<Context, 'db' | 'config'>): ZoneSource {
  return {
    async zoneFor(name: string): Promise<Zone | null> {
      const names = namesAbove(name);
      if (names.length === 0) return null;
      // The domain and its records from one snapshot: a change committed between the two reads cannot mix in.
      return ctx.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const domain = await findServedDomain(trx, names);
          if (!domain) return null;
          return zoneOf(domain, await findAllRecords(trx, domain.account_id, domain.id), ctx.config.dnsNameservers);
        });
    },
  };
}
