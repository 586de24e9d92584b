/** A compute agent's last report (src/compute/agents/host-registry.ts). */
export interface ComputeHostTable {
  /** The agent's `--host` name, unique among agents sharing the database. */
  name: string;
  /** JSON array of the region ids it serves; null: every region. */
  regions: string | null;
  /** What the agent gives machines (its CUMULO_COMPUTE_MEMORY). */
  memory_total_mb: number;
  /** What of that its running machines leave free, when it reported. */
  memory_free_mb: number;
  /** Free space of the filesystem its disks live on, when it reported. */
  disk_free_mb: number;
  /** What that filesystem holds for disks: its free space plus what the disk files take; null from agents that did not report it. */
  disk_capacity_mb: number | null;
  /** JSON object: each running machine's key with its forwarded ports. */
  machines: string;
  /** Wall-clock ms the agent process started (a restart changes it). */
  started_at: number;
  /** Wall-clock ms of its last report: liveness is measured against the wall clock, not the service clock. */
  heartbeat_at: number;
}

declare module '../../db/database.ts' {
  interface Database {
    compute_hosts: ComputeHostTable;
  }
}
