import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { ADMIN_TOKEN, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

/** The banner's lines after the first: the API document and the console, on every start. */
function assertBannerLinks(server: ServerProcess, console = `${server.baseUrl}/`) {
  const out = server.output();
  assert.match(out, new RegExp(`^Cumulo is ready at ${server.baseUrl}/v4 \\(version \\d+\\.\\d+\\.\\d+, database: `, 'm'), out);
  assert.ok(out.includes(`\nAPI document: ${server.baseUrl}/docs (OpenAPI: ${server.baseUrl}/v4/openapi.json)\n`), out);
  assert.ok(out.includes(`\nWeb console: ${console}\n`), out);
}

for (const dialect of DIALECTS) {
  describe(`server process [${dialect}]`, () => {
    test('first start prints a working token once; SIGTERM shuts down cleanly', async (t) => {
      const env: Record<string, string> = { CUMULO_DATA_DIR: tempDir(t) };
      if (dialect === 'postgres') env.DATABASE_URL = urlWithSchema(PG_URL, await freshPgSchema(t));
      const server = await startServerProcess(env);
      t.after(() => server.child.kill('SIGKILL'));
      const token = /^ {2}([0-9a-f]{64})$/m.exec(server.output())?.[1];
      assert.ok(token, `a token is printed:\n${server.output()}`);
      assertBannerLinks(server);
      const profile = await fetch(`${server.baseUrl}/v4/profile`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(profile.status, 200);
      assert.equal(((await profile.json()) as { username: string }).username, 'admin');
      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.output());

      const again = await startServerProcess(env);
      t.after(() => again.child.kill('SIGKILL'));
      assert.doesNotMatch(again.output(), /[0-9a-f]{64}/, 'the token is shown only on the first start');
      assertBannerLinks(again);
      const still = await fetch(`${again.baseUrl}/v4/profile`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(still.status, 200);
      again.child.kill('SIGINT');
      assert.equal(await again.exited, 0, again.output());
    });

    test('the bootstrap token is ensured idempotently', async (t) => {
      const env: Record<string, string> = { CUMULO_DATA_DIR: tempDir(t), CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN };
      if (dialect === 'postgres') env.DATABASE_URL = urlWithSchema(PG_URL, await freshPgSchema(t));
      for (let i = 0; i < 2; i++) {
        const server = await startServerProcess(env);
        t.after(() => server.child.kill('SIGKILL'));
        const res = await fetch(`${server.baseUrl}/v4/profile`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        assert.equal(res.status, 200);
        const hint = ' (admin has no password yet: give it one with npx cumulo user set-password --username admin)';
        assertBannerLinks(server, `${server.baseUrl}/${i === 0 ? hint : ''}`);
        server.child.kill('SIGTERM');
        assert.equal(await server.exited, 0);
      }
    });
  });
}
