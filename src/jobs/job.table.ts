import type { Generated } from 'kysely';

export interface JobTable {
  id: Generated<number>;
  account_id: number | null;
  kind: string;
  /** JSON payload for the handler. */
  payload: string;
  /** Service-clock epoch milliseconds at which the job becomes due. */
  run_at: number;
  /** queued, held (waits for an operator's advance; never claimed), failed (gave up after max_attempts). Finished jobs are deleted. */
  status: string;
  /** For a held job: the transition kind whose advance releases it. */
  transition: string | null;
  attempts: number;
  max_attempts: number;
  /** A worker runs at most a few jobs of one key at once (see Worker), so no key takes every slot. */
  concurrency_key: string | null;
  /** At most one queued job per key: recurring work uses it to stay single. */
  dedupe_key: string | null;
  /** Random token of the worker holding the lease; fences a worker whose lease ran out. */
  lease_token: string | null;
  /** Wall-clock epoch milliseconds after which the lease may be taken over. */
  lease_until: number | null;
  last_error: string | null;
  /** Only this compute host's agent claims the job (a node's real work); null: any process without a host. */
  host: string | null;
  created: string;
}

declare module '../db/database.ts' {
  interface Database {
    jobs: JobTable;
  }
}
