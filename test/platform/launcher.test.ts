import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { ADMIN_TOKEN, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { endProcess, portFree, startLaunchedServer, startServerProcess } from '../helpers/server-process.ts';

const LAUNCHERS = [
  ['npm', 'start'],
  ['npx', 'cumulo', 'serve'],
] as const;

/** A generous bound for a graceful shutdown, so that a server left running fails the test rather than hangs it. */
const GONE_WITHIN_MS = 20_000;

async function waitUntil(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} within ${GONE_WITHIN_MS / 1000} s`);
    await sleep(100);
  }
}

/** The process has ended (an exit its parent has yet to collect counts as ended). */
function ended(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

async function api(baseUrl: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}/v4${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as { data?: { label: string }[] } };
}

for (const dialect of DIALECTS) {
  describe(`stopping the launcher stops the server [${dialect}]`, () => {
    test('SIGHUP, as SIGTERM and SIGINT, closes the server gracefully', async (t) => {
      const env: Record<string, string> = { CUMULO_DATA_DIR: tempDir(t), CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN };
      if (dialect === 'postgres') env.DATABASE_URL = urlWithSchema(PG_URL, await freshPgSchema(t));
      const server = await startServerProcess(env);
      t.after(() => endProcess(server.child, false));
      server.child.kill('SIGHUP');
      assert.equal(await server.exited, 0, server.output());
    });

    for (const launcher of LAUNCHERS) {
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        test(`${signal} to \`${launcher.join(' ')}\`: the port is freed, the server ends, the data is kept`, async (t) => {
          const env: Record<string, string> = {
            CUMULO_DATA_DIR: tempDir(t),
            CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
            // Its lines carry the server's pid.
            LOG_LEVEL: 'info',
          };
          if (dialect === 'postgres') env.DATABASE_URL = urlWithSchema(PG_URL, await freshPgSchema(t));
          const launched = await startLaunchedServer([...launcher], env);
          t.after(() => endProcess(launched.child, true));
          // Log lines are written in batches: the first may come a little after the banner.
          await waitUntil('a log line naming the server pid', () => /"pid":\d+/.test(launched.output()));
          const serverPid = Number(/"pid":(\d+)/.exec(launched.output())?.[1]);
          assert.ok(serverPid > 0 && serverPid !== launched.child.pid, launched.output());
          assert.equal((await api(launched.baseUrl, 'POST', '/tags', { label: 'kept' })).status, 200);

          launched.child.kill(signal);
          const port = Number(new URL(launched.baseUrl).port);
          await waitUntil(`port ${port} is free`, () => portFree(port));
          await waitUntil(`the server (pid ${serverPid}) has ended`, () => ended(serverPid));

          const again = await startServerProcess(env);
          t.after(() => endProcess(again.child, false));
          const tags = await api(again.baseUrl, 'GET', '/tags');
          assert.deepEqual(
            tags.body.data?.map((tag) => tag.label),
            ['kept'],
            `GET /tags answered ${tags.status} ${JSON.stringify(tags.body)}; the server said:\n${again.output()}`,
          );
          again.child.kill('SIGTERM');
          assert.equal(await again.exited, 0, again.output());
        });
      }
    }
  });
}
