import type { Context } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { updateRegionStatus } from '../domain/catalog/catalog.repository.ts';
import { fail } from '../errors.ts';
import { REGION_PREFIX, REQUEST_FAULT_KEY, type RegionStatus } from './operator-state.ts';
import { parseFaultMatch, type RequestFault } from './request-faults.ts';
import { deleteSetting, deleteSettingsUnder, putSetting } from './settings.repository.ts';

export interface FaultsView {
  requests: RequestFault | null;
  /** Regions whose status the operator has changed from the catalog's. */
  regions: { id: string; status: RegionStatus }[];
}

export interface RequestFaultChange {
  error_rate?: number;
  latency_ms?: number;
  match?: string;
  status?: 500 | 503;
}

export function faultsView(ctx: Context): FaultsView {
  const fault = ctx.operator.requestFault;
  return {
    requests: fault
      ? { error_rate: fault.error_rate, latency_ms: fault.latency_ms, match: fault.match, status: fault.status }
      : null,
    regions: [...ctx.operator.regionStatus].map(([id, status]) => ({ id, status })).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

export async function listFaults(ctx: Context): Promise<FaultsView> {
  await ctx.operator.reload();
  return faultsView(ctx);
}

/** Makes a share of the matching v4 requests fail and/or wait (replacing any such fault before). */
export async function setRequestFault(ctx: Context, change: RequestFaultChange): Promise<FaultsView> {
  const fault: RequestFault = {
    error_rate: change.error_rate ?? 0,
    latency_ms: change.latency_ms ?? 0,
    match: (change.match ?? '*').trim(),
    status: change.status ?? 503,
  };
  parseFaultMatch(fault.match);
  await putSetting(ctx.db, REQUEST_FAULT_KEY, fault);
  return listFaults(ctx);
}

/**
 * Marks a region as having an outage, or as ok: `GET /regions` shows it and node placement refuses
 * a region with an outage. Setting the catalog's own status removes the override.
 */
export async function setRegionStatus(ctx: Context, regionId: string, status: RegionStatus): Promise<FaultsView> {
  const region = ctx.catalog.data.regions.find((r) => r.id === regionId);
  if (!region) throw fail.notFound(`No region ${regionId}`);
  await inTransaction(ctx.db, async (trx) => {
    if (status === region.status) await deleteSetting(trx, `${REGION_PREFIX}${regionId}`);
    else await putSetting(trx, `${REGION_PREFIX}${regionId}`, status);
    await updateRegionStatus(trx, regionId, status);
  });
  return listFaults(ctx);
}

/** Ends every injected fault: request faults and region outages (regions go back to the catalog's status). */
export async function clearFaults(ctx: Context): Promise<FaultsView> {
  await inTransaction(ctx.db, async (trx) => {
    await deleteSetting(trx, REQUEST_FAULT_KEY);
    await deleteSettingsUnder(trx, REGION_PREFIX);
    for (const r of ctx.catalog.data.regions) await updateRegionStatus(trx, r.id, r.status);
  });
  return listFaults(ctx);
}
