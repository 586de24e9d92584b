import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, manualClock } from '../nodes/helpers.ts';

const MIN5 = 5 * 60_000;
const HOUR = 3_600_000;
const START = Date.parse('2030-01-01T00:00:00Z');

type Pairs = [number, number][];
interface NodeStats {
  cpu: Pairs;
  io: { io: Pairs; swap: Pairs };
  netv4: Record<'in' | 'out' | 'private_in' | 'private_out', Pairs>;
  netv6: Record<'in' | 'out' | 'private_in' | 'private_out', Pairs>;
}
type Point = { x: number; y: number };

/** Which node stats series each managed series adds up. */
const PARTS: Record<string, (s: NodeStats) => Pairs[]> = {
  cpu: (s) => [s.cpu],
  disk: (s) => [s.io.io],
  swap: (s) => [s.io.swap],
  net_in: (s) => [s.netv4.in, s.netv4.private_in, s.netv6.in, s.netv6.private_in],
  net_out: (s) => [s.netv4.out, s.netv4.private_out, s.netv6.out, s.netv6.private_out],
};

function moveTo(app: TestApp, ms: number): void {
  app.runtime.ctx.clock.advance(ms - app.runtime.ctx.clock.nowMs());
}

async function get(app: TestApp, url: string, token?: string) {
  const res = await app.request('GET', url, token ? { token } : {});
  assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Checks each managed series against the sum of the nodes' own stats at every point. */
async function assertSumsOfNodeStats(app: TestApp, nodeIds: number[]): Promise<Record<string, Point[]>> {
  const managed = (await get(app, '/v4/managed/stats')).data as Record<string, Point[]>;
  const nodes: NodeStats[] = [];
  for (const id of nodeIds) nodes.push((await get(app, `/v4/node/instances/${id}/stats`)).data);
  assert.deepEqual(Object.keys(managed).sort(), ['cpu', 'disk', 'net_in', 'net_out', 'swap']);
  for (const [name, parts] of Object.entries(PARTS)) {
    const expected = new Map<number, number>();
    for (const stats of nodes)
      for (const series of parts(stats)) for (const [x, y] of series) expected.set(x, (expected.get(x) ?? 0) + y);
    const points = managed[name] ?? [];
    assert.deepEqual(
      points.map((p) => p.x),
      [...expected.keys()].sort((a, b) => a - b),
      `${name}: a point at every time a node has one`,
    );
    for (const p of points) {
      assert.ok(Math.abs(p.y - (expected.get(p.x) ?? Number.NaN)) < 0.006, `${name} at ${p.x}: ${p.y} is the nodes' sum`);
    }
  }
  return managed;
}

for (const dialect of DIALECTS) {
  describe(`managed stats [${dialect}]`, () => {
    test("the past day of the account's nodes, each point the sum of the nodes' own stats", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock(START) });
      const empty = await get(app, '/v4/managed/stats');
      assert.deepEqual(empty, { data: { cpu: [], disk: [], swap: [], net_in: [], net_out: [] } }, 'no nodes, no points');

      const first = await createEmptyNode(app, { type: 'g6-standard-2', private_ip: true });
      moveTo(app, START + 2 * HOUR);
      const second = await createEmptyNode(app);
      moveTo(app, START + 5 * HOUR + 60_000);
      const managed = await assertSumsOfNodeStats(app, [first.id, second.id]);
      assert.equal(managed.cpu?.length, 60, 'five hours of five-minute points');
      assert.ok(
        managed.cpu?.every((p, i) => p.x === START + i * MIN5),
        'every five minutes from the first node on',
      );
      assert.ok(managed.cpu?.some((p) => p.y > 0));
      assert.ok(managed.net_out?.every((p) => p.y >= 0));
      const firstOnly = (await get(app, `/v4/node/instances/${first.id}/stats`)).data.cpu as Pairs;
      assert.equal(managed.cpu?.[0]?.y, firstOnly[0]?.[1], 'before the second node existed, the first alone');

      moveTo(app, START + 30 * HOUR);
      const day = await assertSumsOfNodeStats(app, [first.id, second.id]);
      assert.equal(day.cpu?.length, 288, 'only the last 24 hours');
      assert.equal(day.cpu?.[0]?.x, START + 6 * HOUR);

      assert.equal((await app.request('DELETE', `/v4/node/instances/${first.id}`)).status, 200);
      await assertSumsOfNodeStats(app, [second.id]);
    });

    test("an account's stats are its own; restricted users may not read them", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock(START) });
      await createEmptyNode(app);
      moveTo(app, START + HOUR);
      const stranger = await newAccount(app);
      const theirs = await get(app, '/v4/managed/stats', stranger.token);
      assert.deepEqual(theirs.data.cpu, []);
      assert.equal((await get(app, '/v4/managed/stats')).data.cpu.length, 12);
      const restricted = await newUser(app, (await admin(app)).accountId, { restricted: true });
      assert.equal((await app.request('GET', '/v4/managed/stats', { token: restricted.token })).status, 403);
    });
  });
}
