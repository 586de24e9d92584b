import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

for (const dialect of DIALECTS) {
  describe(`jobs with a compute host [${dialect}]`, () => {
    test("an agent's worker claims only its host's jobs; a worker without a host only jobs of none", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const ran: { worker: string; note: string }[] = [];
      const recorder = (worker: string): JobHandler => ({
        kind: 'test.hosted',
        async run({ payload }) {
          ran.push({ worker, note: String(payload.note) });
        },
      });
      for (const [note, host] of [
        ['none', null],
        ['on a', 'a'],
        ['on b', 'b'],
        ['again none', null],
      ] as const) {
        await enqueueJob(ctx.db, ctx.clock, { kind: 'test.hosted', payload: { note }, host });
      }
      assert.equal(await new Worker(ctx, [recorder('agent a')], { pollMs: 5, host: 'a' }).drain(), 1);
      assert.equal(await new Worker(ctx, [recorder('api')], { pollMs: 5 }).drain(), 2);
      assert.equal(await new Worker(ctx, [recorder('agent c')], { pollMs: 5, host: 'c' }).drain(), 0);
      assert.deepEqual(ran, [
        { worker: 'agent a', note: 'on a' },
        { worker: 'api', note: 'none' },
        { worker: 'api', note: 'again none' },
      ]);
      const left = await ctx.db.selectFrom('jobs').select(['host', 'payload']).where('kind', '=', 'test.hosted').execute();
      assert.deepEqual(
        left.map((j) => j.host),
        ['b'],
        "b's job waits for b's agent",
      );
    });
  });
}
