/** A node machine's counters as read at `at` (service-clock ms); each starts again from 0 when the machine does. */
export interface NodeSampleTable {
  node_id: number;
  at: number;
  /** The machine's run the counters are of (the compute driver's): another run counts from 0. */
  run: string;
  cpu_seconds: number;
  disk_read_bytes: number;
  disk_write_bytes: number;
  /** Bytes through its public interface, by family and direction (in: received); `private` is its unrouted addresses' traffic. */
  v4_in: number;
  v4_out: number;
  v4_private_in: number;
  v4_private_out: number;
  v6_in: number;
  v6_out: number;
  v6_private_in: number;
  v6_private_out: number;
}

/** A node's public traffic in one calendar month (UTC), added to at every sample. */
export interface NodeTransferMonthTable {
  node_id: number;
  year: number;
  month: number;
  bytes_in: number;
  bytes_out: number;
}

declare module '../../../db/database.ts' {
  interface Database {
    node_samples: NodeSampleTable;
    node_transfer_months: NodeTransferMonthTable;
  }
}
