import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { ADMIN_TOKEN, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';

/** More than the second a server waits before it listens again on a new connection. */
const LISTEN_AGAIN_MS = 2_500;

/**
 * Two `serve` processes on one PostgreSQL database, as docs/scale-out.md runs them: each keeps
 * the principals of tokens it has seen, and a revocation made through one is answered once the
 * other has forgotten the token, so the next request refuses it on either.
 */
describe('revocation on every server of a scale-out [postgres]', () => {
  test('a token deleted through one server is refused by the other, which had it cached, on the next request', async (t) => {
    const databaseUrl = urlWithSchema(PG_URL, await freshPgSchema(t));
    const start = async (worker: 'on' | 'off') => {
      const server = await startServerProcess({
        CUMULO_DATA_DIR: tempDir(t),
        DATABASE_URL: databaseUrl,
        CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
        CUMULO_WORKER: worker,
      });
      t.after(() => server.child.kill('SIGKILL'));
      return server;
    };
    const a = await start('on');
    const b = await start('off');
    const call = (base: string, method: string, path: string, token: string, body?: unknown) =>
      fetch(`${base}/v4${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });

    for (let round = 1; round <= 3; round++) {
      if (round === 3) {
        // The listening connections are lost (an administrator, a restart of PostgreSQL): each server
        // listens again on a new one, and the round after shows B still hears.
        const admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        const { rowCount } = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where application_name like 'cumulo-listener:%' and datname = current_database()`,
        );
        await admin.end();
        assert.ok((rowCount ?? 0) >= 2, 'both servers were listening');
        await sleep(LISTEN_AGAIN_MS);
      }
      const made = await call(a.baseUrl, 'POST', '/profile/tokens', ADMIN_TOKEN, { label: `round ${round}`, scopes: '*' });
      assert.equal(made.status, 200);
      const { id, token } = (await made.json()) as { id: number; token: string };
      // Seen twice by B: the second answer comes from what B keeps.
      assert.equal((await call(b.baseUrl, 'GET', '/profile', token)).status, 200);
      assert.equal((await call(b.baseUrl, 'GET', '/profile', token)).status, 200);
      assert.equal((await call(a.baseUrl, 'DELETE', `/profile/tokens/${id}`, ADMIN_TOKEN)).status, 200);
      // A answered once B had forgotten the token: B refuses it at once, where its cache alone would
      // have kept it for 5 s.
      assert.equal(
        (await call(b.baseUrl, 'GET', '/profile', token)).status,
        401,
        `round ${round}: B still took the revoked token`,
      );
      assert.equal((await call(a.baseUrl, 'GET', '/profile', token)).status, 401);
    }

    // A process that listens on the schema and never answers (stuck) holds a revocation back for
    // two seconds, not for ever; the others have still forgotten the token.
    const schema = new URL(databaseUrl).searchParams.get('options')?.split('search_path=')[1] ?? '';
    const stuck = new pg.Client({ connectionString: databaseUrl });
    await stuck.connect();
    t.after(() => stuck.end());
    const tag = createHash('sha256').update(schema).digest('hex').slice(0, 8);
    await stuck.query('listen cumulo_changes');
    await stuck.query(`set application_name = 'cumulo-listener:${tag}:0000000000000000'`);
    const made = await call(a.baseUrl, 'POST', '/profile/tokens', ADMIN_TOKEN, { label: 'stuck', scopes: '*' });
    const { id, token } = (await made.json()) as { id: number; token: string };
    assert.equal((await call(b.baseUrl, 'GET', '/profile', token)).status, 200);
    const began = performance.now();
    assert.equal((await call(a.baseUrl, 'DELETE', `/profile/tokens/${id}`, ADMIN_TOKEN)).status, 200);
    const waited = performance.now() - began;
    assert.ok(waited >= 1_900 && waited < 10_000, `the revocation waited ${Math.round(waited)} ms for the stuck listener`);
    assert.equal((await call(b.baseUrl, 'GET', '/profile', token)).status, 401);
  });
});
