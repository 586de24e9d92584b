import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { tagsOf } from '../tags/tag.service.ts';
import type { DomainRow } from './domain.repository.ts';
import type { Domain } from './domain.schema.ts';
import { candidateOf } from './domain-rules.ts';
import type { RecordRow } from './record.repository.ts';
import type { DomainRecord } from './record.schema.ts';
import { findSlaveErrors } from './slave-zone.repository.ts';

export function domainRowToDomain(row: DomainRow, tags: string[], errors: string): Domain {
  return { id: row.id, ...candidateOf(row), tags, created: row.created, updated: row.updated, errors };
}

/** API objects for domains of one account, with one query for their tags and one for the slaves' transfer errors. */
export async function toDomains(db: Kysely<Database>, accountId: number, rows: readonly DomainRow[]): Promise<Domain[]> {
  const tags = await tagsOf(
    db,
    accountId,
    'domain',
    rows.map((r) => r.id),
  );
  const slaves = rows.filter((r) => r.type === 'slave').map((r) => r.id);
  const errors = await findSlaveErrors(db, accountId, slaves);
  return rows.map((row) => domainRowToDomain(row, tags.get(row.id) ?? [], errors.get(row.id) ?? ''));
}

export async function toDomain(db: Kysely<Database>, row: DomainRow): Promise<Domain> {
  const [domain] = await toDomains(db, row.account_id, [row]);
  if (!domain) throw fail.internal();
  return domain;
}

/** A record as the API shows it: SRV's service and protocol with their underscores. */
export function recordRowToRecord(row: RecordRow): DomainRecord {
  return {
    id: row.id,
    type: row.type as DomainRecord['type'],
    name: row.name,
    target: row.target,
    priority: row.priority,
    weight: row.weight,
    port: row.port,
    service: row.service === null ? null : `_${row.service}`,
    protocol: row.protocol === null ? null : `_${row.protocol}`,
    ttl_sec: row.ttl_sec,
    tag: row.tag as DomainRecord['tag'],
    created: row.created,
    updated: row.updated,
  };
}
