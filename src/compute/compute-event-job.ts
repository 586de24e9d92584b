import type { ComputeEvent } from './driver.ts';

/**
 * The durable job a compute event becomes (enqueued in its own transaction by the process that owns
 * compute); the nodes group handles it (docs/compute.md, "When an operation ends").
 */
export const COMPUTE_EVENT_JOB = 'compute.event';

export interface ComputeEventJobPayload {
  key: string;
  event: ComputeEvent['kind'];
}
