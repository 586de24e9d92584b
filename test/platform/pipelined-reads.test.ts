import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import net from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PipelinedReads } from '../../src/db/pipelined-reads.ts';
import { postgresClientConfig, prepareOnEveryConnection, useNamedStatements } from '../../src/db/postgres.ts';
import { PG_URL } from '../helpers/app.ts';

// pg's connection (pg/lib/connection.js), whose Describe messages the tests count.
const Connection = createRequire(import.meta.url)('pg/lib/connection.js') as {
  prototype: { describe(...args: unknown[]): void };
};

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

  test('a named statement asks for its row description once a connection; its rows read the same after', async (t) => {
    const reads = openReads(t, 1);
    const text = `select $1::int8 as id, $2::text as label, $3::timestamp as at, $4::bool as up, null::text as "__proto__" -- ${process.pid}`;
    prepareOnEveryConnection(text);
    const described = t.mock.method(Connection.prototype, 'describe');
    const row = (i: number) => [i, `n${i}`, '2030-01-02 03:04:05', i % 2 === 0];
    const asObject = (i: number) => ({
      id: i,
      label: `n${i}`,
      at: new Date(2030, 0, 2, 3, 4, 5),
      up: i % 2 === 0,
      ['__proto__']: null,
    });
    const first = await reads.query(text, row(1), false);
    assert.equal(described.mock.callCount(), 1);
    assert.deepEqual(first, [asObject(1)]);
    const later = await Promise.all(Array.from({ length: 6 }, (_, i) => reads.query(text, row(i + 2), i % 2 === 0)));
    assert.equal(described.mock.callCount(), 1, 'no row description after the first');
    later.forEach((rows, i) => {
      const [id, label, , up] = row(i + 2);
      if (i % 2 === 0) assert.deepEqual(rows, [[id, label, asObject(i + 2).at, up, null]]);
      else assert.deepEqual(rows, [asObject(i + 2)]);
    });
    // A run that fails fails alone, and the next one reads as before.
    await assert.rejects(reads.query(text, ['not a number', 'x', '2030-01-01', true], true), /invalid input syntax/);
    assert.deepEqual(await reads.query(text, row(9), false), [asObject(9)]);
    assert.equal(described.mock.callCount(), 1);

    // A new connection asks again.
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [await backends(reads)]);
    await admin.end();
    await sleep(200);
    const beforeNew = described.mock.callCount();
    assert.deepEqual(await reads.query(text, row(10), false), [asObject(10)]);
    assert.equal(described.mock.callCount(), beforeNew + 1);
  });

  test("a pooled connection's named statements, rows or none, are described once too", async (t) => {
    const client = new pg.Client(postgresClientConfig({ url: PG_URL }));
    useNamedStatements(client);
    await client.connect();
    t.after(() => client.end());
    await client.query('create temporary table described_once (id int8 primary key, label text)');
    const insert = `insert into described_once (id, label) values ($1, $2) -- ${process.pid}`;
    const select = `select id, label from described_once where id <= $1 order by id -- ${process.pid}`;
    prepareOnEveryConnection(insert);
    prepareOnEveryConnection(select);
    const described = t.mock.method(Connection.prototype, 'describe');
    for (let id = 1; id <= 4; id++) {
      const inserted = await client.query(insert, [id, `l${id}`]);
      assert.equal(inserted.rowCount, 1);
      assert.deepEqual(inserted.rows, []);
      const selected = await client.query(select, [id]);
      assert.deepEqual(
        selected.rows,
        Array.from({ length: id }, (_, i) => ({ id: i + 1, label: `l${i + 1}` })),
      );
      assert.deepEqual(
        selected.fields.map((f: { name: string }) => f.name),
        ['id', 'label'],
      );
    }
    assert.equal(described.mock.callCount(), 2, 'each statement described on its first run only');
    // The callback form pg also takes.
    const viaCallback = await new Promise((resolve, reject) =>
      client.query(select, [1], (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result.rows))),
    );
    assert.deepEqual(viaCallback, [{ id: 1, label: 'l1' }]);
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
