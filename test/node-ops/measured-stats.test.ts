import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FamilyTraffic, MachineCounters } from '../../src/compute/driver.ts';
import { SAMPLE_JOB, startNodeSampling } from '../../src/domain/nodes/stats/node-sampler.jobs.ts';
import { nextSampleAt, sampleGrid } from '../../src/domain/nodes/stats/node-sampler.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { ProcessMachines } from '../helpers/process-machines.ts';
import { createEmptyNode, manualClock, ok } from './helpers.ts';

const START = Date.parse('2030-01-01T00:00:00Z');
type Points = [number, number][];

/** A driver whose machines' counters are what the test says. */
class CountingMachines extends ProcessMachines {
  readonly readings = new Map<string, MachineCounters>();
  override async counters(key: string): Promise<MachineCounters | null> {
    return this.readings.get(key) ?? null;
  }
}

const traffic = (t: Partial<FamilyTraffic> = {}): FamilyTraffic => ({
  inBytes: 0,
  outBytes: 0,
  localInBytes: 0,
  localOutBytes: 0,
  ...t,
});

function counters(c: {
  run?: string;
  cpu: number;
  write?: number;
  v4?: Partial<FamilyTraffic>;
  v6?: Partial<FamilyTraffic>;
}): MachineCounters {
  return {
    run: c.run ?? 'first',
    cpuSeconds: c.cpu,
    diskReadBytes: 0,
    diskWriteBytes: c.write ?? 0,
    ipv4: traffic(c.v4),
    ipv6: traffic(c.v6),
  };
}

async function get(app: TestApp, url: string) {
  return ok(await app.request('GET', url), url).body;
}

/** A node's stats: wrapped in `data` beside their title, as the live service answers; read here with the title beside the figures. */
async function statsAt(app: TestApp, url: string) {
  const body = await get(app, url);
  assert.deepEqual(Object.keys(body), ['title', 'data'], url);
  return { title: body.title, ...body.data };
}

async function queuedSamples(app: TestApp): Promise<number> {
  const rows = await app.runtime.ctx.db.selectFrom('jobs').select('id').where('kind', '=', SAMPLE_JOB).execute();
  return rows.length;
}

for (const dialect of DIALECTS) {
  describe(`measured node stats (a compute driver) [${dialect}]`, () => {
    test('from the sampled counters: empty before any sample, rates between samples (a restart counted from 0), transfer summed per month, managed stats their sum', async (t) => {
      const machines = new CountingMachines();
      const app = await buildTestApp(t, { dialect, clock: manualClock(START), compute: machines });
      const ctx = app.runtime.ctx;
      // A node from no image (the driver builds none here), marked running as if its machine had started.
      const node = await createEmptyNode(app, { private_ip: true });
      await ctx.db.updateTable('nodes').set({ status: 'running' }).where('id', '=', node.id).execute();
      const key = `node-${node.id}`;

      const fresh = await statsAt(app, `/v4/node/instances/${node.id}/stats`);
      assert.equal(fresh.title, `${node.label} (node${node.id}) - day (5 min avg)`);
      assert.deepEqual(fresh.cpu, [], 'no sample yet: no points, not made-up ones');
      assert.deepEqual(fresh.netv4.out, []);
      assert.equal((await get(app, `/v4/node/instances/${node.id}/transfer`)).used, 0);

      // The grid is five minutes scaled by the test apps' CUMULO_TIME_SCALE (0.001): 300 ms.
      const grid = sampleGrid(ctx.timing.scale);
      assert.equal(grid.bucketMs, 300);
      await startNodeSampling(ctx);
      await startNodeSampling(ctx);
      assert.equal(await queuedSamples(app), 1, 'one sampler chain');
      const sampleWith = async (reading: MachineCounters) => {
        machines.readings.set(key, reading);
        ctx.clock.advance(nextSampleAt(ctx.clock.nowMs(), grid) - ctx.clock.nowMs());
        assert.equal(await runDueJobs(app), 1);
      };
      await sampleWith(counters({ cpu: 1, v4: { inBytes: 1000, outBytes: 2000, localOutBytes: 500 } }));
      const first = ctx.clock.nowMs();
      // Over 0.3 s: 0.15 CPU seconds (50 %), 30 blocks written (100 blocks/s), 3750 bytes in over IPv4 (100 kbit/s)...
      await sampleWith(
        counters({
          cpu: 1.15,
          write: 512 * 30,
          v4: { inBytes: 4750, outBytes: 2375, localOutBytes: 575 },
          v6: { outBytes: 375 },
        }),
      );
      // ...then the machine started again: every counter from 0.
      await sampleWith(counters({ run: 'second', cpu: 0.03, v4: { inBytes: 750 }, v6: { outBytes: 75 } }));
      assert.equal(await queuedSamples(app), 1, 'the next sample is queued');

      const stats = await statsAt(app, `/v4/node/instances/${node.id}/stats`);
      const at = [first, first + 300];
      const pointsOf = (values: number[]): Points => values.map((v, i) => [at[i] as number, v]);
      assert.deepEqual(stats.cpu, pointsOf([50, 10]));
      assert.deepEqual(stats.io.io, pointsOf([100, 0]));
      assert.deepEqual(stats.io.swap, pointsOf([0, 0]));
      assert.deepEqual(stats.netv4.in, pointsOf([100_000, 20_000]));
      assert.deepEqual(stats.netv4.out, pointsOf([10_000, 0]));
      assert.deepEqual(stats.netv4.private_out, pointsOf([2_000, 0]));
      assert.deepEqual(stats.netv6.in, pointsOf([0, 0]));
      assert.deepEqual(stats.netv6.out, pointsOf([10_000, 2_000]));

      // Transfer: public bytes only (not the private address's), the first sample's counters included.
      const month = await get(app, `/v4/node/instances/${node.id}/transfer/2030/1`);
      assert.deepEqual(month, { bytes_in: 1000 + 3750 + 750, bytes_out: 2000 + 750 + 75, bytes_total: 8325 });
      const transfer = await get(app, `/v4/node/instances/${node.id}/transfer`);
      assert.equal(transfer.used, 2825, 'used is the public outbound bytes');
      assert.equal(transfer.billable, 0);
      assert.ok(transfer.quota > 0);
      assert.deepEqual(await get(app, `/v4/node/instances/${node.id}/transfer/2029/12`), {
        bytes_in: 0,
        bytes_out: 0,
        bytes_total: 0,
      });

      const managed = await get(app, '/v4/managed/stats');
      assert.deepEqual(
        managed.data.cpu,
        stats.cpu.map(([x, y]: [number, number]) => ({ x, y })),
      );

      // The month view in hours of the grid (3.6 s): once the hour has ended, its time-weighted average.
      ctx.clock.advance(2 * grid.hourMs);
      const hourly = await statsAt(app, `/v4/node/instances/${node.id}/stats/2030/1`);
      assert.equal(hourly.title, `${node.label} (node${node.id}) - month (1 hour avg)`);
      const cpu = hourly.cpu as Points;
      assert.ok(cpu.length >= 1 && cpu.length <= 2, JSON.stringify(cpu));
      assert.ok(cpu.every(([ms]) => ms % grid.hourMs === 0));
      if (cpu.length === 1) assert.equal(cpu[0]?.[1], 30);

      // A machine not running has no counters: the sampler goes on without a sample.
      machines.readings.delete(key);
      ctx.clock.advance(nextSampleAt(ctx.clock.nowMs(), grid) - ctx.clock.nowMs());
      assert.equal(await runDueJobs(app), 1);
      const samples = await ctx.db.selectFrom('node_samples').select('at').where('node_id', '=', node.id).execute();
      assert.equal(samples.length, 3);
    });
  });
}

test('without a compute driver no sampler is started', async (t) => {
  const app = await buildTestApp(t, { dialect: 'sqlite' });
  await startNodeSampling(app.runtime.ctx);
  assert.equal(await queuedSamples(app), 0);
});
