import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createNode, manualClock, ok, runningNode } from './helpers.ts';

const MIN5 = 5 * 60_000;
const HOUR = 3_600_000;
const START = Date.parse('2030-01-01T00:00:00Z');

type Points = [number, number][];

function moveTo(app: TestApp, ms: number): void {
  app.runtime.ctx.clock.advance(ms - app.runtime.ctx.clock.nowMs());
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

function allSeries(stats: {
  cpu: Points;
  io: Record<string, Points>;
  netv4: Record<string, Points>;
  netv6: Record<string, Points>;
}) {
  return [stats.cpu, ...Object.values(stats.io), ...Object.values(stats.netv4), ...Object.values(stats.netv6)];
}

for (const dialect of DIALECTS) {
  describe(`node stats and transfer [${dialect}]`, () => {
    test("the past day in 5-minute points: none before the node existed or in the future, within its type's bounds", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock(START) });
      const node = await runningNode(app, { type: 'g6-standard-2', private_ip: true });
      const plain = await runningNode(app, { type: 'g6-standard-2' });
      moveTo(app, START + 3 * HOUR + 2 * 60_000);
      const url = `/v4/node/instances/${node.id}/stats`;
      const stats = await statsAt(app, url);
      assert.equal(stats.title, `${node.label} (node${node.id}) - day (5 min avg)`);
      for (const series of allSeries(stats)) {
        assert.equal(series.length, 36, 'three hours of completed five-minute steps');
        assert.equal(series[0]?.[0], START);
        assert.ok(series.every(([ms], i) => ms === START + i * MIN5));
      }
      assert.ok(
        stats.cpu.every(([, v]: [number, number]) => v >= 0 && v <= 200),
        'cpu within 2 cores',
      );
      assert.ok(stats.cpu.some(([, v]: [number, number]) => v > 0));
      assert.ok(
        allSeries(stats).every((s) => s.every(([, v]) => v >= 0 && v <= 4000e6)),
        'traffic within network_out',
      );
      assert.ok(
        stats.netv4.private_out.some(([, v]: [number, number]) => v > 0),
        'a private address carries private traffic',
      );
      const other = await statsAt(app, `/v4/node/instances/${plain.id}/stats`);
      assert.ok(
        other.netv4.private_out.every(([, v]: [number, number]) => v === 0),
        'no private address, no private traffic',
      );
      assert.notDeepEqual(other.cpu, stats.cpu, 'each node has its own figures');
      assert.deepEqual(await statsAt(app, url), stats, 'the same question, the same answer');

      moveTo(app, START + 3 * 86_400_000);
      const later = await statsAt(app, url);
      assert.equal(later.cpu.length, 288);
      assert.equal(later.cpu.at(-1)[0], START + 3 * 86_400_000 - MIN5);
      const earlier = new Map(stats.cpu);
      assert.ok(
        later.cpu.every(([ms, v]: [number, number]) => !earlier.has(ms) || earlier.get(ms) === v),
        'history does not change',
      );
    });

    test('a month in hourly points (the past 30 days for the current one); future months are a 400', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock(START) });
      const node = await runningNode(app);
      moveTo(app, START + 20 * HOUR);
      const month = await statsAt(app, `/v4/node/instances/${node.id}/stats/2030/1`);
      assert.equal(month.title, `${node.label} (node${node.id}) - month (1 hour avg)`);
      assert.equal(month.cpu.length, 20);
      const day = await statsAt(app, `/v4/node/instances/${node.id}/stats`);
      for (let h = 0; h < 20; h += 1) {
        const fives = day.cpu.filter(([ms]: [number, number]) => ms >= START + h * HOUR && ms < START + (h + 1) * HOUR);
        const mean = fives.reduce((sum: number, [, v]: [number, number]) => sum + v, 0) / fives.length;
        assert.ok(Math.abs(month.cpu[h][1] - mean) < 0.01, `hour ${h}: the hourly point is the mean of its five-minute points`);
      }
      const before = await statsAt(app, `/v4/node/instances/${node.id}/stats/2029/12`);
      assert.ok(
        allSeries(before).every((s) => s.length === 0),
        'nothing before the node existed',
      );
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/stats/2030/2`)).status, 400);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/stats/2030/13`)).status, 400);

      moveTo(app, Date.parse('2030-03-10T00:00:00Z'));
      const january = await statsAt(app, `/v4/node/instances/${node.id}/stats/2030/1`);
      assert.equal(january.cpu.length, 31 * 24);
      const march = await statsAt(app, `/v4/node/instances/${node.id}/stats/2030/3`);
      assert.equal(march.cpu.length, 30 * 24, 'the current month: the past 30 days');
    });

    test('transfer: the public traffic the stats show, summed; the quota prorated from the creation; past months', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock(START) });
      const node = await runningNode(app);
      moveTo(app, START + 10 * HOUR);
      const month = await get(app, `/v4/node/instances/${node.id}/transfer/2030/1`);
      assert.ok(month.bytes_out > 0 && month.bytes_in > 0);
      assert.equal(month.bytes_total, month.bytes_in + month.bytes_out);
      const stats = await statsAt(app, `/v4/node/instances/${node.id}/stats`);
      const bytes = (series: Points[]) => series.flat().reduce((sum, [, v]) => sum + (v * 300) / 8, 0);
      const out = bytes([stats.netv4.out, stats.netv6.out]);
      assert.ok(Math.abs(out - month.bytes_out) / month.bytes_out < 1e-4, `transfer ${month.bytes_out} matches the stats ${out}`);

      const current = await get(app, `/v4/node/instances/${node.id}/transfer`);
      assert.deepEqual(current, { used: month.bytes_out, quota: 2000, billable: 0 });
      assert.deepEqual(await get(app, `/v4/node/instances/${node.id}/transfer/2029/12`), {
        bytes_in: 0,
        bytes_out: 0,
        bytes_total: 0,
      });
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/transfer/2030/2`)).status, 400, 'the future');
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/transfer/1999/1`)).status, 400, 'out of range');

      moveTo(app, Date.parse('2030-01-16T00:00:00Z'));
      const late = await createNode(app, { type: 'g6-standard-1' });
      const prorated = await get(app, `/v4/node/instances/${late.id}/transfer`);
      assert.equal(prorated.quota, Math.ceil((2000 * 16) / 31));
      moveTo(app, Date.parse('2030-02-02T00:00:00Z'));
      const january = await get(app, `/v4/node/instances/${node.id}/transfer/2030/1`);
      assert.ok(january.bytes_out > month.bytes_out * 20, 'a whole month of traffic');
      assert.ok(january.bytes_out < 2000 * 2 ** 30, 'within the quota');
      const february = await get(app, `/v4/node/instances/${node.id}/transfer`);
      assert.ok(february.used > 0 && february.used < january.bytes_out);
    });
  });
}
