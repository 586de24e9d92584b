import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import type { Page, PageRequest } from '../../../db/paginate.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { assertUnderLimit } from '../../account/limits.ts';
import { actorOf, type Principal } from '../../account/principal.ts';
import { recordEvent } from '../../events/event.service.ts';
import { egressRefusalFor } from '../../networking/egress.service.ts';
import { assertCredentialsOfAccount, liveCredentialIds } from '../credentials/credential.service.ts';
import { closeIssuesOf } from '../issues/issue.service.ts';
import { reprobeAt, scheduleProbe } from './probe-schedule.ts';
import {
  countServices,
  deleteServiceRow,
  findService,
  insertService,
  listServices,
  type ServiceRow,
  updateServiceRow,
} from './service.repository.ts';
import type { CreateService, Service, ServiceStatus, UpdateService } from './service.schema.ts';
import { isPrivateAddress, probeTarget } from './service-address.ts';
import { serviceEntity } from './service-entity.ts';

/*
 * Managed services: what the probes watch (probe.jobs.ts). A service is `pending` from its creation
 * or enabling (and after a change of what is probed) until its first probe, then `ok` or `problem`;
 * `disabled` stops the probes and closes its open issue, as does deleting it.
 */

function toService(row: ServiceRow, credentials: readonly number[]): Service {
  return {
    id: row.id,
    label: row.label,
    service_type: row.service_type as Service['service_type'],
    address: row.address,
    timeout: row.timeout,
    body: row.body,
    consultation_group: row.consultation_group,
    notes: row.notes,
    region: row.region,
    credentials: [...credentials],
    status: row.status as ServiceStatus,
    created: row.created,
    updated: row.updated,
  };
}

const credentialIdsOf = (row: ServiceRow) => JSON.parse(row.credentials) as number[];

/** Services as answered: each names only the credentials that still exist. */
async function servicesOf(db: Kysely<Database>, accountId: number, rows: readonly ServiceRow[]): Promise<Service[]> {
  const live = new Set(await liveCredentialIds(db, accountId, [...new Set(rows.flatMap(credentialIdsOf))]));
  return rows.map((row) =>
    toService(
      row,
      credentialIdsOf(row).filter((id) => live.has(id)),
    ),
  );
}

async function serviceOf(db: Kysely<Database>, row: ServiceRow): Promise<Service> {
  const [service] = await servicesOf(db, row.account_id, [row]);
  if (!service) throw new Error('a service row gave no service');
  return service;
}

async function serviceFor(db: Kysely<Database>, accountId: number, id: number): Promise<ServiceRow> {
  const row = await findService(db, accountId, id);
  if (!row) throw fail.notFound();
  return row;
}

/**
 * The address checked against the type, the egress policy (an IP address the service may not
 * connect to is refused here; a name when it is probed) and the region against the address: a
 * private (RFC 1918) address needs the region whose private network reaches it; any other (public,
 * a name) takes none. A region carried over from before is dropped when the address no longer needs it.
 */
async function checkedAddress(
  ctx: Context,
  db: Kysely<Database>,
  accountId: number,
  type: string,
  address: string,
  region: { value: string | null; given: boolean },
): Promise<{ address: string; region: string | null }> {
  const target = probeTarget(type, address);
  if (typeof target === 'string') throw fail.badRequest(target, 'address');
  const refusal = await egressRefusalFor(ctx, db, accountId, target.host, target.port);
  if (refusal !== null) throw fail.badRequest(refusal, 'address');
  const stored = target.type === 'url' ? target.url : address.trim();
  if (!isPrivateAddress(target.host)) {
    if (region.given && region.value !== null) {
      throw fail.badRequest('Must not be set unless the address is a private IP address', 'region');
    }
    return { address: stored, region: null };
  }
  if (region.value === null) throw fail.badRequest('Required for a service at a private IP address', 'region');
  if (!ctx.catalog.region(region.value)) throw fail.badRequest(`Region ${region.value} does not exist`, 'region');
  return { address: stored, region: region.value };
}

export async function getServices(ctx: Context, accountId: number, request: PageRequest): Promise<Page<Service>> {
  const page = await listServices(ctx.db, accountId, request);
  return { ...page, data: await servicesOf(ctx.db, accountId, page.data) };
}

export async function getService(ctx: Context, accountId: number, id: number): Promise<Service> {
  return serviceOf(ctx.db, await serviceFor(ctx.db, accountId, id));
}

export async function createService(ctx: Context, principal: Principal, body: CreateService): Promise<Service> {
  const { accountId } = principal;
  return inTransaction(ctx.db, async (trx) => {
    const where = await checkedAddress(ctx, trx, accountId, body.service_type, body.address, {
      value: body.region ?? null,
      given: true,
    });
    const credentials = body.credentials ?? [];
    await assertCredentialsOfAccount(trx, accountId, credentials);
    const limit = ctx.config.limitManagedServices;
    await assertUnderLimit(trx, {
      key: `managed services of account ${accountId}`,
      limit,
      count: () => countServices(trx, accountId),
      reason: `An account may have at most ${limit} managed services`,
      field: 'label',
    });
    const now = toTimestamp(ctx.clock.nowMs());
    const row = await insertService(trx, {
      account_id: accountId,
      label: body.label,
      service_type: body.service_type,
      address: where.address,
      timeout: body.timeout,
      body: body.body ?? null,
      consultation_group: body.consultation_group ?? '',
      notes: body.notes ?? null,
      region: where.region,
      credentials: JSON.stringify([...new Set(credentials)]),
      status: 'pending',
      probe_epoch: 1,
      reprobe_at: null,
      last_probed: null,
      last_problem: null,
      created: now,
      updated: now,
    });
    await recordEvent(trx, ctx, actorOf(principal), { action: 'managed_service_create', entity: serviceEntity(row) });
    await scheduleProbe(trx, ctx, row);
    return serviceOf(trx, row);
  });
}

/**
 * Changes the fields the body names. A change of what is probed (type, address, timeout, body) makes
 * an enabled service `pending` and probes it at once (at most once a minute: `reprobeAt`); its open
 * issue stays until that probe says.
 */
export async function updateService(ctx: Context, accountId: number, id: number, body: UpdateService): Promise<Service> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await serviceFor(trx, accountId, id);
    const type = body.service_type ?? row.service_type;
    const where = await checkedAddress(ctx, trx, accountId, type, body.address ?? row.address, {
      value: body.region === undefined ? row.region : body.region,
      given: body.region !== undefined,
    });
    if (body.credentials) await assertCredentialsOfAccount(trx, accountId, body.credentials);
    const probeBody = body.body === undefined ? row.body : body.body;
    const timeout = body.timeout ?? row.timeout;
    const reprobe =
      row.status !== 'disabled' &&
      (type !== row.service_type || where.address !== row.address || timeout !== row.timeout || probeBody !== row.body);
    const now = ctx.clock.nowMs();
    const probeAt = reprobeAt(now, row);
    const updated = await updateServiceRow(trx, row.id, {
      label: body.label,
      service_type: type,
      address: where.address,
      timeout,
      body: probeBody,
      consultation_group: body.consultation_group,
      notes: body.notes,
      region: where.region,
      credentials: body.credentials ? JSON.stringify([...new Set(body.credentials)]) : undefined,
      ...(reprobe ? { status: 'pending', probe_epoch: row.probe_epoch + 1, reprobe_at: probeAt } : {}),
      updated: toTimestamp(now),
    });
    if (reprobe) await scheduleProbe(trx, ctx, updated, probeAt);
    return serviceOf(trx, updated);
  });
}

/** Ends the service's monitoring: its probes stop and its open issue closes. */
export async function deleteService(ctx: Context, principal: Principal, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await serviceFor(trx, principal.accountId, id);
    await closeIssuesOf(trx, ctx, row, 'the service was deleted');
    await deleteServiceRow(trx, row.id);
    await recordEvent(trx, ctx, actorOf(principal), {
      action: 'managed_service_delete',
      entity: serviceEntity(row),
    });
  });
}

/** Stops the probes (a probe in flight is dropped) and closes the open issue; disabling twice changes nothing. */
export async function disableService(ctx: Context, accountId: number, id: number): Promise<Service> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await serviceFor(trx, accountId, id);
    if (row.status === 'disabled') return serviceOf(trx, row);
    await closeIssuesOf(trx, ctx, row, 'monitoring of the service was disabled');
    const updated = await updateServiceRow(trx, row.id, {
      status: 'disabled',
      probe_epoch: row.probe_epoch + 1,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    return serviceOf(trx, updated);
  });
}

/**
 * Watches the service again: `pending` until a probe, run at once (at most once a minute, as for an
 * update: `reprobeAt`), says ok or problem.
 */
export async function enableService(ctx: Context, accountId: number, id: number): Promise<Service> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await serviceFor(trx, accountId, id);
    const now = ctx.clock.nowMs();
    const probeAt = reprobeAt(now, row);
    const updated = await updateServiceRow(trx, row.id, {
      status: 'pending',
      probe_epoch: row.probe_epoch + 1,
      reprobe_at: probeAt,
      updated: toTimestamp(now),
    });
    await scheduleProbe(trx, ctx, updated, probeAt);
    return serviceOf(trx, updated);
  });
}
