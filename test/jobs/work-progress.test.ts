import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrepareContext } from '../../src/jobs/handler.ts';
import type { OperationPace, ReportProgress } from '../../src/jobs/operation.ts';
import { progressSteps, WorkProgress } from '../../src/jobs/work-progress.ts';

/** A reporter whose writes are recorded as they start (each taking `writeMs`), for an event of account 1. */
function recorded(writeMs = 0) {
  const writes: number[] = [];
  const write: ReportProgress = async (_db, _ctx, _event, status, percent) => {
    assert.equal(status, 'started');
    writes.push(percent);
    await sleep(writeMs);
  };
  const job = { ctx: { db: null, log: { warn: () => {} } } } as unknown as PrepareContext;
  const reporter = new WorkProgress(job, { accountId: 1, id: 7, created: '2026-11-25T00:00:00' }, write);
  return { writes, reporter };
}

describe('the progress of an operation real work', () => {
  test('written at once, then at most once a second, only upwards, between 1 and 99', async () => {
    const { writes, reporter } = recorded();
    reporter.report(0.1);
    reporter.report(0.3);
    reporter.report(0.2);
    await sleep(20);
    assert.deepEqual(writes, [10], 'the first report is written at once, the next held back');
    await sleep(1500);
    assert.deepEqual(writes, [10, 30], 'the highest held back is written a second later');
    reporter.report(1);
    reporter.report(0);
    await sleep(1500);
    assert.deepEqual(writes, [10, 30, 99], 'the work being done is 99: 100 is the finish phase');
    await reporter.settled();
  });

  test('settled waits for the write under way and drops what is held back, so no write lands after the finish', async () => {
    const { writes, reporter } = recorded(200);
    reporter.report(0.5);
    reporter.report(0.6);
    await reporter.settled();
    assert.deepEqual(writes, [50]);
    reporter.report(0.9);
    await sleep(1300);
    assert.deepEqual(writes, [50], 'nothing is written once settled');
  });

  test('each write carries the pace so far: the time left and, when the event says how much data moves, the rate', async () => {
    const paces: (OperationPace | null | undefined)[] = [];
    const write: ReportProgress = async (_db, _ctx, _event, _status, _percent, pace) => {
      paces.push(pace);
    };
    const job = { ctx: { db: null, log: { warn: () => {} } } } as unknown as PrepareContext;
    const event = { accountId: 1, id: 7, created: '2026-11-25T00:00:00', dataMb: 1000 };
    const reporter = new WorkProgress(job, event, write);
    await sleep(200);
    reporter.report(0.25);
    await reporter.settled();
    const [pace] = paces;
    assert.ok(pace?.remainingMs && pace.mbPerSecond, JSON.stringify(paces));
    // A quarter done in about 0.2 s: about 0.6 s left, 250 MB moved at about 1 250 MB/s.
    assert.ok(pace.remainingMs >= 550 && pace.remainingMs < 1500, `remaining ${pace.remainingMs}`);
    assert.ok(pace.mbPerSecond > 150 && pace.mbPerSecond <= 1300, `rate ${pace.mbPerSecond}`);

    paces.length = 0;
    const unsized = new WorkProgress(job, { accountId: 1, id: 8, created: '2026-11-25T00:00:00' }, write);
    unsized.report(0.5);
    await unsized.settled();
    assert.equal(paces[0]?.mbPerSecond, null, 'no rate without the size of the data');
  });

  test('steps weighted by size cover their span in order', () => {
    const seen: number[] = [];
    const [small, large] = progressSteps((f) => seen.push(Math.round(f * 1000) / 1000), [1, 3], [0, 0.8]);
    small?.(0.5);
    small?.(1);
    large?.(0);
    large?.(0.5);
    large?.(2);
    assert.deepEqual(seen, [0.1, 0.2, 0.2, 0.5, 0.8]);
  });
});
