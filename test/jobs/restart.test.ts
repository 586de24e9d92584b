import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { pgUrlWithSchema, startServerProcess } from '../helpers/server-process.ts';

const EXPIRY_MS = 3000;

for (const dialect of DIALECTS) {
  describe(`durability across a crash [${dialect}]`, () => {
    test('a job scheduled before kill -9 runs after restart', async (t) => {
      const env: Record<string, string> = { CUMULO_DATA_DIR: tempDir(t), CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN };
      if (dialect === 'postgres') env.DATABASE_URL = pgUrlWithSchema(PG_URL, await freshPgSchema(t));
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

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

      const second = await startServerProcess(env);
      t.after(() => second.child.kill('SIGKILL'));
      const listed = async () => {
        const res = await fetch(`${second.baseUrl}/v4/profile/tokens`, { headers: auth });
        return ((await res.json()) as { data: { id: number }[] }).data.map((d) => d.id);
      };
      assert.ok((await listed()).includes(token.id), 'the token is there until its expiry job runs');
      const deadline = Date.now() + EXPIRY_MS + 10_000;
      while ((await listed()).includes(token.id)) {
        assert.ok(Date.now() < deadline, 'the expiry job ran after the restart');
        await new Promise((r) => setTimeout(r, 100));
      }
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0, second.output());
    });
  });
}
