import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { revokeEntityGrants } from '../account/grant-entities.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { recordEvent } from '../events/event.service.ts';
import { assertMayTag, removeTags, retag } from '../tags/tag.service.ts';
import { deleteDomainRow, findDomainsOfAccount, listDomains } from './domain.repository.ts';
import type { CreateDomain, Domain, UpdateDomain, ZoneFile } from './domain.schema.ts';
import { domainEntity, domainFor, domainIdOf } from './domain-access.ts';
import { domainChanged } from './domain-change.ts';
import { assertDomainFree, createDomainWith } from './domain-create.ts';
import { candidateOf, domainColumns, NEW_DOMAIN, withChanges } from './domain-rules.ts';
import { toDomain, toDomains } from './domain-view.ts';
import { findZoneFile } from './zone-file.repository.ts';

export async function getDomains(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Domain>> {
  const page = await listDomains(ctx.db, scope, request);
  return { ...page, data: await toDomains(ctx.db, scope.accountId, page.data) };
}

export async function getDomain(ctx: Context, scope: AccountScope, id: number): Promise<Domain> {
  return toDomain(ctx.db, await domainFor(ctx.db, scope, id, 'read_only'));
}

/** Some of the account's domains as the API shows them, by id (what a tag's objects list shows). */
export async function domainsWithIds(db: Kysely<Database>, accountId: number, ids: readonly number[]): Promise<Domain[]> {
  return toDomains(db, accountId, await findDomainsOfAccount(db, accountId, ids));
}

/** Adds a domain (the route has checked add_domains); event dns_zone_create, and its first zone render. */
export async function createDomain(ctx: Context, principal: Principal, body: CreateDomain): Promise<Domain> {
  assertMayTag(principal, body.tags);
  const columns = domainColumns(withChanges({ ...NEW_DOMAIN, domain: body.domain, type: body.type }, body));
  return inTransaction(ctx.db, async (trx) => {
    const row = await createDomainWith(trx, ctx, principal, { columns, tags: body.tags ?? [], records: [] }, 'dns_zone_create');
    return toDomain(trx, row);
  });
}

async function replaceTags(
  db: Kysely<Database>,
  ctx: Context,
  principal: Principal,
  row: { id: number; account_id: number },
  tags: string[],
  now: string,
) {
  await retag(db, principal.restricted, row.account_id, 'domain', row.id, tags, now, ctx.config.limitTags);
}

/**
 * Changes any of the domain's fields; the result must hold as a created domain would (a slave
 * keeps a master IP, a master its soa_email). A new serial and a render; event dns_zone_update.
 */
export async function updateDomain(ctx: Context, principal: Principal, id: number, body: UpdateDomain): Promise<Domain> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await domainFor(trx, scopeOf(principal), id, 'read_write');
    const columns = domainColumns(withChanges(candidateOf(row), body));
    if (columns.domain !== row.domain) await assertDomainFree(trx, columns.domain, 'domain', row.id);
    const now = ctx.clock.nowMs();
    if (body.tags !== undefined) await replaceTags(trx, ctx, principal, row, body.tags, toTimestamp(now));
    const updated = await domainChanged(trx, ctx, row, columns);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'dns_zone_update', entity: domainEntity(updated) });
    return toDomain(trx, updated);
  });
}

/** Deletes a domain with all its records and its rendered zone; event dns_zone_delete. */
export async function deleteDomain(ctx: Context, principal: Principal, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await domainFor(trx, scopeOf(principal), id, 'read_write');
    await removeTags(trx, row.account_id, 'domain', row.id);
    await revokeEntityGrants(trx, row.account_id, 'domain', row.id);
    await deleteDomainRow(trx, row.account_id, row.id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'dns_zone_delete', entity: domainEntity(row) });
  });
}

/** The lines of the domain's last rendered zone; none before its first render (or for a domain never rendered: a slave). */
export async function getZoneFile(ctx: Context, scope: AccountScope, idText: string): Promise<ZoneFile> {
  const domain = await domainFor(ctx.db, scope, domainIdOf(idText), 'read_only');
  const rendered = await findZoneFile(ctx.db, domain.account_id, domain.id);
  return { zone_file: rendered ? (JSON.parse(rendered.lines) as string[]) : [] };
}
