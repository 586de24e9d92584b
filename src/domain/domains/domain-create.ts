import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { grantToCreator } from '../account/grant-entities.ts';
import { assertUnderLimit } from '../account/limits.ts';
import { actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { recordEvent } from '../events/event.service.ts';
import type { EventAction } from '../events/event-kinds.ts';
import { setTags } from '../tags/tag.service.ts';
import { countDomains, type DomainRow, domainNameTaken, insertDomain } from './domain.repository.ts';
import { domainEntity } from './domain-access.ts';
import { isActiveSlave, nextSerial, scheduleSlaveRefresh, scheduleZoneRender } from './domain-change.ts';
import type { DomainColumns } from './domain-rules.ts';
import { insertRecords } from './record.repository.ts';
import type { RecordValues } from './record-rules.ts';

/**
 * Refuses a domain name that any account already holds. Two requests for one name at once: the
 * unique index refuses the second insert, and its transaction runs again and ends here.
 */
export async function assertDomainFree(db: Kysely<Database>, domain: string, field: string, exceptId?: number): Promise<void> {
  if (await domainNameTaken(db, domain, exceptId)) {
    throw fail.badRequest(`Domain ${domain} already exists; a domain can be added only once`, field);
  }
}

export interface NewDomain {
  columns: DomainColumns;
  tags: readonly string[];
  records: readonly RecordValues[];
}

/**
 * Writes a new domain with its tags and records (checked already), grants it to a restricted
 * creator, records the event and schedules its first render (a slave: its first transfer); in the
 * caller's transaction.
 */
export async function createDomainWith(
  db: Kysely<Database>,
  ctx: Context,
  principal: Principal,
  domain: NewDomain,
  action: EventAction,
): Promise<DomainRow> {
  const scope = scopeOf(principal);
  await assertDomainFree(db, domain.columns.domain, 'domain');
  const { limitDomains, limitRecordsPerDomain } = ctx.config;
  if (domain.records.length > limitRecordsPerDomain) {
    throw fail.badRequest(
      `A domain may have at most ${limitRecordsPerDomain} records; this one would have ${domain.records.length}`,
    );
  }
  await assertUnderLimit(db, {
    key: `domains of account ${scope.accountId}`,
    limit: limitDomains,
    count: () => countDomains(db, scope.accountId),
    reason: `An account may have at most ${limitDomains} domains`,
    field: 'domain',
  });
  const nowMs = ctx.clock.nowMs();
  const now = toTimestamp(nowMs);
  const row = await insertDomain(db, {
    ...domain.columns,
    account_id: scope.accountId,
    serial: nextSerial(0, nowMs),
    created: now,
    updated: now,
  });
  if (domain.tags.length)
    await setTags(db, scope.accountId, 'domain', row.id, domain.tags, now, ctx.config.limitTags, { fresh: true });
  await grantToCreator(db, scope, 'domain', row.id);
  await insertRecords(
    db,
    domain.records.map((r) => ({ ...r, account_id: scope.accountId, domain_id: row.id, created: now, updated: now })),
  );
  await recordEvent(db, ctx, actorOf(principal), { action, entity: domainEntity(row) });
  await scheduleZoneRender(db, ctx, row);
  if (isActiveSlave(row)) await scheduleSlaveRefresh(db, ctx, row);
  return row;
}
