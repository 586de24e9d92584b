import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { ADMIN_TOKEN, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { startWebServer } from './probe-servers.ts';

for (const dialect of DIALECTS) {
  describe(`managed probes across a crash [${dialect}]`, () => {
    test('a service acknowledged before kill -9 is probed by the restarted server, and keeps being probed', async (t) => {
      const web = await startWebServer(t);
      const env: Record<string, string> = {
        CUMULO_DATA_DIR: tempDir(t),
        CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
        CUMULO_MANAGED_PROBE_INTERVAL: '1',
        // The web server is on loopback, which the egress policy refuses unless the operator allows it.
        CUMULO_EGRESS_ALLOW: '127.0.0.0/8',
      };
      if (dialect === 'postgres') env.DATABASE_URL = urlWithSchema(PG_URL, await freshPgSchema(t));
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

      // The first server runs no worker: the probe it queued can only be run after the crash.
      const first = await startServerProcess({ ...env, CUMULO_WORKER: 'off' });
      t.after(() => first.child.kill('SIGKILL'));
      const created = await fetch(`${first.baseUrl}/v4/managed/services`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ label: 'web', service_type: 'url', address: web.url, timeout: 2 }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      const { id } = (await created.json()) as { id: number };
      first.child.kill('SIGKILL');
      await first.exited;
      assert.equal(web.requests, 0);

      const second = await startServerProcess(env);
      t.after(() => second.child.kill('SIGKILL'));
      const statusNow = async () => {
        const res = await fetch(`${second.baseUrl}/v4/managed/services/${id}`, { headers });
        return ((await res.json()) as { status: string }).status;
      };
      const waitFor = async (status: string, what: string) => {
        const deadline = Date.now() + 15_000;
        while ((await statusNow()) !== status) {
          assert.ok(Date.now() < deadline, what);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await waitFor('ok', 'the restarted server probed the service');
      web.answer = { status: 500, body: 'broken' };
      await waitFor('problem', 'a later probe, one interval on, saw the failure');
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0, second.output());
    });
  });
}
