import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase } from '../../src/db/open.ts';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { ADMIN_TOKEN, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';

const EXPIRY_MS = 2000;

for (const dialect of DIALECTS) {
  describe(`durability across a crash [${dialect}]`, () => {
    test('a job scheduled before kill -9 runs after restart', async (t) => {
      const dataDir = tempDir(t);
      const env: Record<string, string> = { CUMULO_DATA_DIR: dataDir, CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN };
      const pgSchema = dialect === 'postgres' ? await freshPgSchema(t) : undefined;
      if (pgSchema) env.DATABASE_URL = urlWithSchema(PG_URL, pgSchema);
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
      // Looks at the stored state directly, as the server sees it after a restart.
      const inspect = async <T>(look: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>): Promise<T> => {
        const handle = openDatabase({
          databaseUrl: pgSchema ? PG_URL : undefined,
          dataDir,
          ...(pgSchema ? { pgSchema } : {}),
        });
        try {
          return await look(handle.db);
        } finally {
          await handle.close();
        }
      };

      const first = await startServerProcess(env);
      t.after(() => first.child.kill('SIGKILL'));
      const expiry = new Date(Date.now() + EXPIRY_MS).toISOString().slice(0, 19);
      const created = await fetch(`${first.baseUrl}/v4/profile/tokens`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ label: 'short-lived', scopes: '*', expiry }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      const token = (await created.json()) as { id: number };
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');

      const pending = await inspect((db) => db.selectFrom('jobs').select(['kind', 'payload']).execute());
      assert.deepEqual(
        pending.map((j) => [j.kind, JSON.parse(j.payload).tokenId]),
        [['token.expire', token.id]],
        'the expiry job survived the crash',
      );
      // Let the job fall due while nothing runs, so only the restarted server can run it.
      await new Promise((r) => setTimeout(r, EXPIRY_MS + 200));
      const stillThere = await inspect((db) => db.selectFrom('tokens').select('id').where('id', '=', token.id).execute());
      assert.equal(stillThere.length, 1, 'nothing removed the token while the server was down');

      const second = await startServerProcess(env);
      t.after(() => second.child.kill('SIGKILL'));
      const deadline = Date.now() + 15_000;
      for (;;) {
        const rows = await inspect((db) => db.selectFrom('tokens').select('id').where('id', '=', token.id).execute());
        if (rows.length === 0) break;
        assert.ok(Date.now() < deadline, 'the restarted server ran the expiry job');
        await new Promise((r) => setTimeout(r, 100));
      }
      const left = await inspect((db) => db.selectFrom('jobs').select('id').execute());
      assert.equal(left.length, 0, 'the job is gone once it ran');
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0, second.output());
    });
  });
}
