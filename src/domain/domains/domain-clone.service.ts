import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { type Principal, scopeOf } from '../account/principal.ts';
import { loadGlobalGrants } from '../account/user.service.ts';
import { tagsOf } from '../tags/tag.service.ts';
import type { CloneDomain, Domain } from './domain.schema.ts';
import { domainFor, domainIdOf } from './domain-access.ts';
import { createDomainWith } from './domain-create.ts';
import { candidateOf, domainColumns } from './domain-rules.ts';
import { toDomain } from './domain-view.ts';
import { findAllRecords } from './record.repository.ts';
import type { CaaTag, RecordType } from './record.schema.ts';
import type { RecordValues } from './record-rules.ts';

/**
 * A new domain named `body.domain` with the settings, tags and every record of the source (which
 * needs read_write; a restricted user also add_domains). The name must be free as for a create;
 * event dns_zone_create for the new domain.
 */
export async function cloneDomain(ctx: Context, principal: Principal, idText: string, body: CloneDomain): Promise<Domain> {
  const id = domainIdOf(idText);
  return inTransaction(ctx.db, async (trx) => {
    const source = await domainFor(trx, scopeOf(principal), id, 'read_write');
    if (!(await loadGlobalGrants(trx, principal)).add_domains) {
      throw fail.forbidden('Unauthorized: cloning a domain makes a new one, which needs the add_domains grant');
    }
    const columns = domainColumns({ ...candidateOf(source), domain: body.domain.toLowerCase() });
    const records: RecordValues[] = (await findAllRecords(trx, source.account_id, source.id)).map((r) => ({
      type: r.type as RecordType,
      name: r.name,
      target: r.target,
      priority: r.priority,
      weight: r.weight,
      port: r.port,
      service: r.service,
      protocol: r.protocol,
      tag: r.tag as CaaTag | null,
      ttl_sec: r.ttl_sec,
    }));
    const tags = (await tagsOf(trx, source.account_id, 'domain', [source.id])).get(source.id) ?? [];
    const row = await createDomainWith(trx, ctx, principal, { columns, tags, records }, 'dns_zone_create');
    return toDomain(trx, row);
  });
}
