import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PipelinedReads } from '../../src/db/pipelined-reads.ts';
import { postgresClientConfig, useNamedStatements } from '../../src/db/postgres.ts';
import { PG_URL } from '../helpers/app.ts';

function openReads(t: { after(fn: () => Promise<void>): void }, connections = 2): PipelinedReads {
  const reads = new PipelinedReads(postgresClientConfig({ url: PG_URL }), connections, useNamedStatements);
  t.after(() => reads.close());
  return reads;
}

/** The server processes the reads run on, by asking on each connection until both have answered. */
async function backends(reads: PipelinedReads): Promise<number[]> {
  const rows = await Promise.all(Array.from({ length: 8 }, () => reads.query('select pg_backend_pid() as pid', [], false)));
  return [...new Set(rows.map((r) => (r[0] as { pid: number }).pid))];
}

describe('plain reads pipelined on PostgreSQL', () => {
  test('many reads at once each get their own answer, as objects or as arrays, on two connections', async (t) => {
    const reads = openReads(t);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => reads.query('select $1::int as n, $2::text as s', [i, `r${i}`], i % 2 === 0)),
    );
    answers.forEach((rows, i) => {
      assert.deepEqual(rows, i % 2 === 0 ? [[i, `r${i}`]] : [{ n: i, s: `r${i}` }]);
    });
    assert.equal((await backends(reads)).length, 2);
  });

  test('the reads of one turn leave in one write of the socket, and each gets its own answer', async (t) => {
    const reads = openReads(t, 1);
    assert.deepEqual(await reads.query('select $1::int as n', [0], true), [[0]]);
    const socket = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
    const writes: number[] = [];
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method];
      t.mock.method(socket, method, function (this: unknown, ...args: unknown[]) {
        writes.push(method === '_writev' ? (args[0] as unknown[]).length : 1);
        return original.apply(this, args);
      });
    }
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => reads.query('select $1::int as n', [i], true)));
    assert.deepEqual(
      answers,
      Array.from({ length: 10 }, (_, i) => [[i]]),
    );
    assert.equal(writes.length, 1, `one write, not ${writes.length}`);
    assert.ok((writes[0] ?? 0) >= 10, 'the write holds every read');
    t.mock.restoreAll();
    // A read of a later turn is written on its own, not held.
    await sleep(10);
    assert.deepEqual(await reads.query('select $1::int as n', [11], true), [[11]]);
  });

  test('a read that fails fails alone: the reads sent beside it on its connection answer', async (t) => {
    const reads = openReads(t, 1);
    const sent = [
      reads.query('select $1::int as n', [1], true),
      reads.query('select 1 / $1::int as n', [0], true),
      reads.query('select $1::int as n', [3], true),
    ];
    const settled = await Promise.allSettled(sent);
    assert.deepEqual(settled[0], { status: 'fulfilled', value: [[1]] });
    assert.equal(settled[1]?.status, 'rejected');
    assert.match(String((settled[1] as PromiseRejectedResult).reason), /division by zero/);
    assert.deepEqual(settled[2], { status: 'fulfilled', value: [[3]] });
  });

  test('connections the server ends are replaced: the reads after answer', async (t) => {
    const reads = openReads(t);
    const before = await backends(reads);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [before]);
    await admin.end();
    // The ends reach the client as its sockets close.
    await sleep(200);
    const after = await backends(reads);
    assert.equal(after.length, 2);
    assert.ok(
      after.every((pid) => !before.includes(pid)),
      'new server processes',
    );
    assert.deepEqual(await reads.query('select $1::int as n', [7], true), [[7]]);
  });

  test('once closed, a read is refused', async (t) => {
    const reads = openReads(t);
    assert.deepEqual(await reads.query('select 1 as n', [], true), [[1]]);
    await reads.close();
    await assert.rejects(reads.query('select 1 as n', [], true), /closed/);
  });
});
