import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { ADMIN_TOKEN, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { nodeBody } from './helpers.ts';

/** A serving runtime with its own worker, on the given data: what `cumulo serve` runs. */
async function serve(dataDir: string, pgSchema: string | undefined): Promise<Runtime> {
  const config = loadConfig(
    {},
    {
      dataDir,
      bootstrapToken: ADMIN_TOKEN,
      logLevel: 'silent',
      inProcessWorker: true,
      workerPollMs: 20,
      // Provisioning takes 20 simulated seconds: 2 real seconds here, long enough to stop in the middle.
      timeScale: 0.1,
      ...(pgSchema ? { databaseUrl: PG_URL } : {}),
    },
  );
  return startRuntime(config, { role: 'serve', logger: pino({ level: 'silent' }), ...(pgSchema ? { pgSchema } : {}) });
}

async function request(runtime: Runtime, method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await runtime.app?.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  assert.ok(res);
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

for (const dialect of DIALECTS) {
  describe(`provisioning across a restart [${dialect}]`, () => {
    test('a node created before the server stops becomes running after it starts again, through its own worker', async (t) => {
      const dataDir = tempDir(t);
      const pgSchema = dialect === 'postgres' ? await freshPgSchema(t) : undefined;

      const first = await serve(dataDir, pgSchema);
      let closed = false;
      t.after(() => (closed ? undefined : first.close()));
      const created = await request(first, 'POST', '/v4/node/instances', nodeBody());
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const id = created.body.id;
      await sleep(100);
      assert.equal((await request(first, 'GET', `/v4/node/instances/${id}`)).body.status, 'provisioning');
      await first.close();
      closed = true;

      const second = await serve(dataDir, pgSchema);
      t.after(() => second.close());
      assert.equal((await request(second, 'GET', `/v4/node/instances/${id}`)).body.status, 'provisioning', 'still provisioning');
      const deadline = Date.now() + 15_000;
      let status = 'provisioning';
      while (status === 'provisioning') {
        assert.ok(Date.now() < deadline, 'provisioning finished after the restart');
        await sleep(50);
        status = (await request(second, 'GET', `/v4/node/instances/${id}`)).body.status;
      }
      assert.equal(status, 'running');
      const events = await request(second, 'GET', '/v4/account/events');
      const create = events.body.data.find((e: { action: string }) => e.action === 'node_create');
      assert.equal(create?.status, 'finished');
      const disks = await request(second, 'GET', `/v4/node/instances/${id}/disks`);
      assert.deepEqual(
        disks.body.data.map((d: { status: string }) => d.status),
        ['ready', 'ready'],
      );
    });
  });
}
