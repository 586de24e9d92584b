import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { preparedRead } from '../../src/db/prepared.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

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
  });
}
