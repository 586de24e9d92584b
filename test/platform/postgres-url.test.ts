import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPostgresPool } from '../../src/db/postgres.ts';
import { freshPgSchema } from '../helpers/app.ts';

test("a schema joins the settings a DATABASE_URL's own `options` make; neither is lost", async (t) => {
  const schema = await freshPgSchema(t);
  const pool = createPostgresPool({
    url: 'postgres://postgres@127.0.0.1:5432/test?options=-c%20statement_timeout%3D12345',
    schema,
  });
  t.after(() => pool.end());
  const { rows } = await pool.query("select current_schema() as schema, current_setting('statement_timeout') as timeout");
  assert.deepEqual(rows, [{ schema, timeout: '12345ms' }]);
});
