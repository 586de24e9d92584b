import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Generated, type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { preparedRead, preparedStatement, rowArguments, rowsOf } from '../../src/db/prepared.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

interface ProbeDb {
  prepared_probe: { key: string; value: string | null; note: Generated<string> };
}

for (const dialect of DIALECTS) {
  describe(`prepared reads [${dialect}]`, () => {
    test('built once a shape, then every call binds its own arguments where they belong', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      let builds = 0;
      const read = preparedRead((d, args: { a: number; b: string }, shape) => {
        builds += 1;
        return d
          .selectFrom('regions')
          .select([sql<string>`${args.b}`.as('echo'), sql<number>`${args.a} + 0`.as('number'), 'id'])
          .where('id', shape === 'one' ? '=' : '<>', 'us-east')
          .orderBy('id')
          .limit(1);
      });
      const first = await read(db, 'one', { a: 1, b: 'x' });
      const second = await read(db, 'one', { a: 2, b: 'y' });
      assert.deepEqual(
        [first, second].map((rows) => rows.map((r) => [r.echo, Number(r.number), r.id])),
        [[['x', 1, 'us-east']], [['y', 2, 'us-east']]],
      );
      assert.equal(builds, 1, 'one build for the shape');
      const other = await read(db, 'other', { a: 3, b: 'z' });
      assert.notEqual(other[0]?.id, 'us-east', 'another shape is built on its own');
      assert.equal(builds, 2);
    });

    test("a write runs in the caller's transaction; a null argument is bound, an undefined one left out", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      await sql`create table prepared_probe (key text primary key, value text, note text not null default 'default')`.execute(db);
      const probe = (d: Kysely<Database>) => d as unknown as Kysely<ProbeDb>;
      let builds = 0;
      const insert = preparedStatement((d, values: { key: string; value?: string | null; note?: string }) => {
        builds += 1;
        return probe(d).insertInto('prepared_probe').values(values).returningAll();
      });
      const read = (key: string) => probe(db).selectFrom('prepared_probe').selectAll().where('key', '=', key).executeTakeFirst();

      const rows = await inTransaction(db, async (trx) => [
        ...(await insert(trx, '', { key: 'a', value: 'one', note: 'given' })),
        ...(await insert(trx, '', { key: 'b', value: null, note: 'given' })),
      ]);
      assert.deepEqual(
        rows.map((r) => [r.key, r.value, r.note]),
        [
          ['a', 'one', 'given'],
          ['b', null, 'given'],
        ],
      );
      assert.equal(builds, 1, 'a null is bound in the statement built for a value');

      const [c] = await insert(db, '', { key: 'c', value: 'three', note: undefined });
      assert.equal(c?.note, 'default', 'a column left undefined takes its default');
      assert.equal(builds, 2, 'the statement without it is built on its own');

      await assert.rejects(
        inTransaction(db, async (trx) => {
          await insert(trx, '', { key: 'd', value: 'rolled back', note: 'given' });
          throw new Error('undo');
        }),
        /undo/,
      );
      assert.equal(await read('d'), undefined, 'written in the transaction that was rolled back: gone with it');
      assert.equal((await read('a'))?.value, 'one');
    });

    test('rows as arguments; past the shapes it keeps, each statement is still built for its own shape', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      const regions = preparedStatement((d, args: Record<string, unknown>, shape) =>
        d
          .selectFrom('regions')
          .select('id')
          .where(
            'id',
            'in',
            rowsOf(args, shape).map((row) => row.id as string),
          ),
      );
      for (let n = 1; n <= 80; n++) {
        const rows = Array.from({ length: n }, (_, i) => ({ id: i === n - 1 ? 'us-east' : `none-${i}` }));
        assert.deepEqual(
          (await regions(db, String(n), rowArguments(rows))).map((r) => r.id),
          ['us-east'],
          `${n} rows`,
        );
      }
    });
  });
}
