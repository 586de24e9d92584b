import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { ForwardedPort } from '../driver.ts';
import type { ComputeHostTable } from './compute-host.table.ts';

/** What an agent reports of its host, every few seconds. */
export interface HostReport {
  name: string;
  /** The regions it serves; null: every region. */
  regions: readonly string[] | null;
  memoryTotalMb: number;
  memoryFreeMb: number;
  diskFreeMb: number;
  /** What its storage holds for disks (free space and what its disk files take); null from an agent that does not say. */
  diskCapacityMb: number | null;
  /** Its running machines, each with its forwarded ports (none in bridge mode). */
  machines: Readonly<Record<string, readonly ForwardedPort[]>>;
  /** Wall-clock ms. */
  startedAt: number;
  /** Wall-clock ms. */
  heartbeatAt: number;
}

/** Writes an agent's report over its last one. */
export async function reportHost(db: Kysely<Database>, report: HostReport): Promise<void> {
  const row: ComputeHostTable = {
    name: report.name,
    regions: report.regions === null ? null : JSON.stringify(report.regions),
    memory_total_mb: report.memoryTotalMb,
    memory_free_mb: report.memoryFreeMb,
    disk_free_mb: report.diskFreeMb,
    disk_capacity_mb: report.diskCapacityMb,
    machines: JSON.stringify(report.machines),
    started_at: report.startedAt,
    heartbeat_at: report.heartbeatAt,
  };
  const { name: _name, ...changes } = row;
  await db
    .insertInto('compute_hosts')
    .values(row)
    .onConflict((oc) => oc.column('name').doUpdateSet(changes))
    .execute();
}

function reportOf(row: ComputeHostTable): HostReport {
  return {
    name: row.name,
    regions: row.regions === null ? null : (JSON.parse(row.regions) as string[]),
    memoryTotalMb: Number(row.memory_total_mb),
    memoryFreeMb: Number(row.memory_free_mb),
    diskFreeMb: Number(row.disk_free_mb),
    diskCapacityMb: row.disk_capacity_mb === null ? null : Number(row.disk_capacity_mb),
    machines: JSON.parse(row.machines) as Record<string, ForwardedPort[]>,
    startedAt: Number(row.started_at),
    heartbeatAt: Number(row.heartbeat_at),
  };
}

/** Every agent that has reported, by name. */
export async function listHosts(db: Kysely<Database>): Promise<HostReport[]> {
  const rows = await db.selectFrom('compute_hosts').selectAll().orderBy('name').execute();
  return rows.map(reportOf);
}

/** Whether any agent has ever reported: nodes are then placed on agents. */
export async function hostsExist(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('compute_hosts').select('name').limit(1).executeTakeFirst()) !== undefined;
}

/** An agent is live while its last report is at most `offlineMs` old (wall clock). */
export function hostIsLive(host: HostReport, nowMs: number, offlineMs: number): boolean {
  return nowMs - host.heartbeatAt <= offlineMs;
}

export function hostServes(host: HostReport, region: string): boolean {
  return host.regions === null || host.regions.includes(region);
}

export interface PlacementNeed {
  region: string;
  memoryMb: number;
  diskMb: number;
  /** Memory the nodes placed on each host take (by the database, so placements not yet booted count). */
  usedMb: ReadonlyMap<string, number>;
  /** The sizes of the disks of the nodes placed on each host, written or not. */
  diskPromisedMb: ReadonlyMap<string, number>;
  /** How many times its storage a host's disks' sizes may add up to (CUMULO_DISK_OVERCOMMIT). */
  diskOvercommit: number;
  nowMs: number;
  offlineMs: number;
}

/** Memory a host has left for one more machine: the less of its last report and what its placed nodes leave. */
export function hostMemoryLeftMb(host: HostReport, usedMb: ReadonlyMap<string, number>): number {
  return Math.min(host.memoryFreeMb, host.memoryTotalMb - (usedMb.get(host.name) ?? 0));
}

/**
 * Disk (MB) a host has left for more disks: its storage times the over-commit ratio, less the sizes
 * of the disks placed on it. A report without its storage's size has only its free space to go by.
 */
export function hostDiskLeftMb(host: HostReport, promisedMb: ReadonlyMap<string, number>, overcommit: number): number {
  if (host.diskCapacityMb === null) return host.diskFreeMb;
  return Math.floor(host.diskCapacityMb * overcommit) - (promisedMb.get(host.name) ?? 0);
}

/**
 * The live host serving the region with room for the machine and its disks, the one with the most
 * memory left (ties by name); or why there is none.
 */
export function chooseHost(
  hosts: readonly HostReport[],
  need: PlacementNeed,
): { host: HostReport } | { reason: string; lacking: 'region' | 'room' } {
  const live = hosts.filter((h) => hostIsLive(h, need.nowMs, need.offlineMs));
  const diskLeft = (h: HostReport) => hostDiskLeftMb(h, need.diskPromisedMb, need.diskOvercommit);
  const serving = live.filter((h) => hostServes(h, need.region));
  if (serving.length === 0) {
    return {
      reason: `No live compute host serves region ${need.region} (${live.length} of ${hosts.length} hosts live)`,
      lacking: 'region',
    };
  }
  const fitting = serving
    .filter((h) => hostMemoryLeftMb(h, need.usedMb) >= need.memoryMb && diskLeft(h) >= need.diskMb)
    .sort((a, b) => hostMemoryLeftMb(b, need.usedMb) - hostMemoryLeftMb(a, need.usedMb) || a.name.localeCompare(b.name));
  const best = fitting[0];
  if (best) return { host: best };
  const memory = Math.max(0, ...serving.map((h) => hostMemoryLeftMb(h, need.usedMb)));
  const disk = Math.max(0, ...serving.map(diskLeft));
  return {
    reason: `No compute host in region ${need.region} has room for this node: it needs ${need.memoryMb} MB of memory and ${need.diskMb} MB of disk; the most a host has free is ${memory} MB of memory and ${disk} MB of disk`,
    lacking: 'room',
  };
}
