import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { absoluteName } from '../../dns/names.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { assertUnderLimit } from '../account/limits.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { recordEvent } from '../events/event.service.ts';
import type { DomainRow } from './domain.repository.ts';
import { domainFor, recordChangeEvent } from './domain-access.ts';
import { domainChanged } from './domain-change.ts';
import { recordRowToRecord } from './domain-view.ts';
import {
  countRecords,
  deleteRecordRow,
  findRecord,
  findRecordsNamed,
  insertRecord,
  listRecords,
  type RecordRow,
  updateRecordRow,
} from './record.repository.ts';
import type { CreateRecord, DomainRecord, RecordType, UpdateRecord } from './record.schema.ts';
import { type RecordValues, recordValues } from './record-rules.ts';

async function recordOf(db: Kysely<Database>, domain: DomainRow, recordId: number): Promise<RecordRow> {
  const record = await findRecord(db, domain.account_id, domain.id, recordId);
  if (!record) throw fail.notFound();
  return record;
}

/**
 * What a record may not share its name with: a CNAME is the only record of its name, and a null MX
 * (empty target) the only MX of its name.
 */
async function assertFitsName(db: Kysely<Database>, domain: DomainRow, values: RecordValues, exceptId?: number) {
  const others = await findRecordsNamed(db, domain.account_id, domain.id, values.name, exceptId);
  const name = absoluteName(values.name, domain.domain);
  const cname = others.find((r) => r.type === 'CNAME');
  if (values.type === 'CNAME' && others.length > 0) {
    throw fail.badRequest(`${name} already has a ${others[0]?.type} record; a CNAME cannot share its name`, 'name');
  }
  if (cname) throw fail.badRequest(`${name} has a CNAME record, which cannot share its name with other records`, 'name');
  if (values.type !== 'MX') return;
  const mx = others.filter((r) => r.type === 'MX');
  if (values.target === '' && mx.length > 0) {
    throw fail.badRequest(`A null MX record must be the only MX record of ${name}; remove the others first`, 'target');
  }
  if (mx.some((r) => r.target === '')) {
    throw fail.badRequest(`${name} has a null MX record: it takes no other MX records`, 'target');
  }
}

/** A slave domain's records come from its master: they are changed there, not here. */
function assertOwnRecords(domain: DomainRow): void {
  if (domain.type === 'slave') {
    throw fail.badRequest(
      `${domain.domain} is a slave domain: it serves a copy of its master's zone, whose records are changed on the master`,
    );
  }
}

export async function getRecords(
  ctx: Context,
  scope: AccountScope,
  domainId: number,
  request: PageRequest,
): Promise<Page<DomainRecord>> {
  const domain = await domainFor(ctx.db, scope, domainId, 'read_only');
  return mapPage(await listRecords(ctx.db, domain.account_id, domain.id, request), recordRowToRecord);
}

export async function getRecord(ctx: Context, scope: AccountScope, domainId: number, recordId: number): Promise<DomainRecord> {
  const domain = await domainFor(ctx.db, scope, domainId, 'read_only');
  return recordRowToRecord(await recordOf(ctx.db, domain, recordId));
}

/**
 * Adds a record after the checks of its type (record-rules.ts) and its name; `remote` is the
 * request's address, for a `[remote_addr]` target. The domain gets a new serial and a render; event
 * dns_record_create.
 */
export async function createRecord(
  ctx: Context,
  principal: Principal,
  domainId: number,
  body: CreateRecord,
  remote: string | null,
): Promise<DomainRecord> {
  return inTransaction(ctx.db, async (trx) => {
    const domain = await domainFor(trx, scopeOf(principal), domainId, 'read_write');
    assertOwnRecords(domain);
    const values = recordValues(body, domain.domain, remote);
    await assertFitsName(trx, domain, values);
    const limit = ctx.config.limitRecordsPerDomain;
    await assertUnderLimit(trx, {
      key: `records of domain ${domain.id}`,
      limit,
      count: () => countRecords(trx, domain.account_id, domain.id),
      reason: `A domain may have at most ${limit} records`,
    });
    const now = toTimestamp(ctx.clock.nowMs());
    const record = await insertRecord(trx, {
      ...values,
      account_id: domain.account_id,
      domain_id: domain.id,
      created: now,
      updated: now,
    });
    const changed = await domainChanged(trx, ctx, domain);
    await recordEvent(trx, ctx, actorOf(principal), recordChangeEvent('dns_record_create', changed, record));
    return recordRowToRecord(record);
  });
}

/** Changes a record: the fields sent over the stored ones, checked as a new record would be; event dns_record_update. */
export async function updateRecord(
  ctx: Context,
  principal: Principal,
  domainId: number,
  recordId: number,
  body: UpdateRecord,
  remote: string | null,
): Promise<DomainRecord> {
  return inTransaction(ctx.db, async (trx) => {
    const domain = await domainFor(trx, scopeOf(principal), domainId, 'read_write');
    const record = await recordOf(trx, domain, recordId);
    assertOwnRecords(domain);
    const kept = <T>(sent: T | undefined, stored: T) => (sent === undefined ? stored : sent);
    const values = recordValues(
      {
        type: kept(body.type, record.type as RecordType),
        name: kept(body.name, record.name),
        target: kept(body.target, record.target),
        priority: kept(body.priority, record.priority),
        weight: kept(body.weight, record.weight),
        port: kept(body.port, record.port),
        service: kept(body.service, record.service),
        protocol: kept(body.protocol, record.protocol),
        // A stored 0 (the domain's TTL) is kept as not given: given, 0 would round to 300.
        ttl_sec: kept(body.ttl_sec, record.ttl_sec === 0 ? undefined : record.ttl_sec),
        tag: kept(body.tag, record.tag as RecordValues['tag']),
      },
      domain.domain,
      remote,
    );
    await assertFitsName(trx, domain, values, record.id);
    const updated = await updateRecordRow(trx, domain.account_id, record.id, {
      ...values,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    const changed = await domainChanged(trx, ctx, domain);
    await recordEvent(trx, ctx, actorOf(principal), recordChangeEvent('dns_record_update', changed, updated));
    return recordRowToRecord(updated);
  });
}

/** Deletes a record; the domain gets a new serial and a render; event dns_record_delete. */
export async function deleteRecord(ctx: Context, principal: Principal, domainId: number, recordId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const domain = await domainFor(trx, scopeOf(principal), domainId, 'read_write');
    const record = await recordOf(trx, domain, recordId);
    await deleteRecordRow(trx, domain.account_id, record.id);
    const changed = await domainChanged(trx, ctx, domain);
    await recordEvent(trx, ctx, actorOf(principal), recordChangeEvent('dns_record_delete', changed, record));
  });
}
