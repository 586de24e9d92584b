import { hostIsLive, listHosts } from '../compute/agents/host-registry.ts';
import type { Context } from '../context.ts';
import { toTimestamp } from '../time/timestamp.ts';

export interface ComputeHost {
  name: string;
  /** null: every region. */
  regions: string[] | null;
  live: boolean;
  last_heartbeat: string;
  seconds_silent: number;
  memory_total_mb: number;
  memory_free_mb: number;
  disk_free_mb: number;
  machines: number;
  started: string;
}

/** The compute agents that have reported, with their capacity and liveness (wall clock). */
export async function listComputeHosts(ctx: Context): Promise<{ data: ComputeHost[] }> {
  const now = Date.now();
  const hosts = await listHosts(ctx.db);
  return {
    data: hosts.map((h) => ({
      name: h.name,
      regions: h.regions === null ? null : [...h.regions],
      live: hostIsLive(h, now, ctx.config.agentOfflineMs),
      last_heartbeat: toTimestamp(h.heartbeatAt),
      seconds_silent: Math.max(0, Math.round((now - h.heartbeatAt) / 1000)),
      memory_total_mb: h.memoryTotalMb,
      memory_free_mb: h.memoryFreeMb,
      disk_free_mb: h.diskFreeMb,
      machines: Object.keys(h.machines).length,
      started: toTimestamp(h.startedAt),
    })),
  };
}
