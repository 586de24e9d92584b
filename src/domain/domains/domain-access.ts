import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { INT32_MAX } from '../../http/schemas.ts';
import { entityFor } from '../account/entity-access.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import type { EntityRef, EventSpec } from '../events/event.service.ts';
import type { DomainRow } from './domain.repository.ts';
import { domainKind } from './domain-kind.ts';
import type { RecordRow } from './record.repository.ts';

/** A domain id given as text (clone, zone-file): one past what ids reach names nothing. */
export function domainIdOf(text: string): number {
  const id = Number(text);
  if (!Number.isSafeInteger(id) || id > INT32_MAX) throw fail.notFound();
  return id;
}

/** The domain a request acts on (404, 403 and the write lock of `entityFor`: its records, and its serial with them, take turns too). */
export function domainFor(db: Kysely<Database>, scope: AccountScope, id: number, need: Permission): Promise<DomainRow> {
  return entityFor(db, domainKind, scope, id, need, { what: 'the domain', missing: () => fail.notFound() });
}

/** A domain a request names in its body (a tag's `domains`): as `domainFor`, but one the caller cannot see is a 400 naming the field. */
export function domainNamedIn(
  db: Kysely<Database>,
  scope: AccountScope,
  id: number,
  need: Permission,
  field: string,
): Promise<DomainRow> {
  return entityFor(db, domainKind, scope, id, need, {
    what: `domain ${id}`,
    missing: () => fail.badRequest(`Domain ${id} does not exist or is not available to you`, field),
  });
}

export function domainEntity(row: Pick<DomainRow, 'id' | 'domain'>): EntityRef {
  return { id: row.id, type: 'domain', label: row.domain, url: `/v4/domains/${row.id}` };
}

/** A record's event names its domain, and the record (by its name; the domain's own, by the domain) as the secondary entity. */
export function recordChangeEvent(action: EventSpec['action'], domain: DomainRow, record: RecordRow): EventSpec {
  return {
    action,
    entity: domainEntity(domain),
    secondary: {
      id: record.id,
      type: 'domain_record',
      label: record.name === '' ? domain.domain : record.name,
      url: `/v4/domains/${domain.id}/records/${record.id}`,
    },
  };
}
