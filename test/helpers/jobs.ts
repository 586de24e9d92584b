import { REFRESH_SLAVE_JOB } from '../../src/domain/domains/domain-change.ts';
import { PROBE_JOB } from '../../src/domain/managed/services/probe-schedule.ts';
import { jobHandlers } from '../../src/job-handlers.ts';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { Worker } from '../../src/jobs/worker.ts';
import type { TestApp } from './app.ts';

/** A worker on the test app's context (test apps run none of their own); drive it with `drain()`. */
export function testWorker(app: TestApp): Worker {
  return new Worker(app.runtime.ctx, jobHandlers(false), { pollMs: 10 });
}

/** Runs every job due on the service clock now; returns how many ran. */
export function runDueJobs(app: TestApp): Promise<number> {
  return testWorker(app).drain();
}

/** Jobs that watch something for as long as it exists, each queuing the next: they never settle. */
export const WATCHER_KINDS: ReadonlySet<string> = new Set([PROBE_JOB, REFRESH_SLAVE_JOB]);

/** Runs every job due now; returns how many of them were not watchers. */
export async function runDueWork(app: TestApp): Promise<number> {
  let work = 0;
  const counted = jobHandlers(false).map(
    (h): JobHandler => ({
      ...h,
      run: (job) => {
        if (!WATCHER_KINDS.has(h.kind)) work += 1;
        return h.run(job);
      },
    }),
  );
  await new Worker(app.runtime.ctx, counted, { pollMs: 10 }).drain();
  return work;
}
