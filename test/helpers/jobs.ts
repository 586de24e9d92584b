import { JOB_HANDLERS } from '../../src/jobs/handlers.ts';
import { Worker } from '../../src/jobs/worker.ts';
import type { TestApp } from './app.ts';

/** A worker on the test app's context (test apps run none of their own); drive it with `drain()`. */
export function testWorker(app: TestApp): Worker {
  return new Worker(app.runtime.ctx, JOB_HANDLERS, { pollMs: 10 });
}

/** Runs every job due on the service clock now; returns how many ran. */
export function runDueJobs(app: TestApp): Promise<number> {
  return testWorker(app).drain();
}
