import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { REDACTED, redactUrl as redactUrlFor } from '../../src/http/request-log.ts';
import { shortLogLine } from '../../src/log-line.ts';
import { logFormatFor } from '../../src/logger.ts';
import { CREDENTIAL_PATHS } from '../../src/routes.ts';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';
import { startServerProcess } from '../helpers/server-process.ts';

/** The URLs of the request lines Fastify logged ("request completed", one a request). */
function loggedUrls(lines: string[]): string[] {
  return lines.map((l) => JSON.parse(l)).flatMap((entry) => (entry.msg === 'request completed' ? [entry.req.url] : []));
}

const redactUrl = (url: string) => redactUrlFor(url, CREDENTIAL_PATHS);

describe('redactUrl', () => {
  test('replaces credential query values and upload tokens, and leaves the rest as it came', () => {
    assert.equal(redactUrl('/v4/regions?page=2&page_size=25'), '/v4/regions?page=2&page_size=25');
    assert.equal(redactUrl('/v4/profile?access_token=abc&page=1'), `/v4/profile?access_token=${REDACTED}&page=1`);
    assert.equal(
      redactUrl('/v4/x?Token=a&API_KEY=b&password=c&X-Amz-Signature=d'),
      `/v4/x?Token=${REDACTED}&API_KEY=${REDACTED}&password=${REDACTED}&X-Amz-Signature=${REDACTED}`,
    );
    assert.equal(redactUrl('/v4/x?access%5Ftoken=a&access_token'), `/v4/x?access%5Ftoken=${REDACTED}&access_token`);
    assert.equal(
      redactUrl('/v4/node/instances/1/console/connect?ticket=ab12'),
      `/v4/node/instances/1/console/connect?ticket=${REDACTED}`,
    );
    assert.equal(redactUrl('/uploads/images/0123abcd'), `/uploads/images/${REDACTED}`);
    assert.equal(redactUrl('//uploads//images/0123abcd/more?x=1'), `//uploads//images/${REDACTED}/${REDACTED}?x=1`);
    assert.equal(redactUrl('/uploads/%69mages/0123abcd'), `/uploads/%69mages/${REDACTED}`);
    assert.equal(redactUrl('/uploads/images'), '/uploads/images');
    assert.equal(redactUrl('/v4/images/uploads/images'), '/v4/images/uploads/images');
    assert.equal(redactUrlFor('/exports/x/secret', ['/uploads/images', '/exports/x']), `/exports/x/${REDACTED}`);
  });
});

describe('short log lines', () => {
  const at = new Date(2026, 0, 2, 15, 4, 5).getTime();

  test('a request is its time, method, URL, status and duration; other lines their level unless info, message and fields', () => {
    const request = {
      level: 30,
      time: at,
      pid: 1,
      hostname: 'h',
      reqId: 'req-1',
      req: { method: 'GET', url: `/v4/profile?access_token=${REDACTED}`, host: 'x', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: 3.0625,
      msg: 'request completed',
    };
    assert.equal(shortLogLine(request), `15:04:05 GET /v4/profile?access_token=${REDACTED} 200 3.1ms`);
    assert.equal(
      shortLogLine({ level: 30, time: at, pid: 1, hostname: 'h', msg: 'database migrated', applied: ['a', 'b', 'c', 'd', 'e'] }),
      '15:04:05 database migrated applied=[a,…,e](5)',
    );
    assert.equal(
      shortLogLine({
        level: 40,
        time: at,
        msg: 'slave domain: no master answered',
        domain: 'example.net',
        error: 'timed out',
        n: 2,
      }),
      '15:04:05 WARN slave domain: no master answered domain=example.net error="timed out" n=2',
    );
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at job (worker.ts:1:1)' };
    assert.equal(
      shortLogLine({ level: 50, time: at, msg: 'worker: job failed', jobId: 7, err }),
      '15:04:05 ERROR worker: job failed jobId=7\n    Error: boom\n        at job (worker.ts:1:1)',
    );
    assert.equal(
      shortLogLine({ level: 50, time: at, msg: 'failed', err: { message: 'no stack' } }),
      '15:04:05 ERROR failed err="no stack"',
    );
  });

  test('LOG_FORMAT decides; unset, short lines on a terminal and JSON lines anywhere else', () => {
    assert.equal(logFormatFor(undefined, { isTTY: true }), 'pretty');
    assert.equal(logFormatFor(undefined, {}), 'json');
    assert.equal(logFormatFor('json', { isTTY: true }), 'json');
    assert.equal(logFormatFor('pretty', {}), 'pretty');
  });
});

for (const dialect of DIALECTS) {
  describe(`request log [${dialect}]`, () => {
    test('a server process logs short lines with LOG_FORMAT=pretty, JSON lines to a pipe; credentials redacted in both', async (t) => {
      const token = 'f00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeed';
      const outputs: Record<string, string> = {};
      for (const format of ['pretty', '']) {
        const env: Record<string, string> = { CUMULO_DATA_DIR: tempDir(t), LOG_LEVEL: 'info', LOG_FORMAT: format };
        if (dialect === 'postgres') env.DATABASE_URL = urlWithSchema(PG_URL, await freshPgSchema(t));
        const server = await startServerProcess(env);
        t.after(() => server.child.kill('SIGKILL'));
        assert.equal((await fetch(`${server.baseUrl}/v4/regions?token=${token}&page=1`)).status, 200);
        server.child.kill('SIGTERM');
        await server.exited;
        outputs[format || 'auto'] = server.output();
      }
      const pretty = outputs.pretty ?? '';
      assert.match(pretty, /^\d\d:\d\d:\d\d GET \/v4\/regions\?token=\[REDACTED\]&page=1 200 \d+\.\dms$/m, pretty);
      assert.doesNotMatch(pretty, /^\{/m, 'no JSON line');
      const auto = outputs.auto ?? '';
      const json = auto
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        json
          .filter((entry) => entry.msg === 'request completed' && entry.req.url.startsWith('/v4/'))
          .map((entry) => [entry.req.url, entry.res.statusCode]),
        [[`/v4/regions?token=${REDACTED}&page=1`, 200]],
        auto,
      );
      for (const out of [pretty, auto]) assert.ok(!out.includes(token), out);
    });

    test('no credential reaches the log: query tokens, the Authorization header, upload URL tokens', async (t) => {
      const { logger, lines } = capturedLog();
      const app = await buildTestApp(t, { dialect, logger });
      const queryToken = 'f00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeed';

      assert.equal((await app.request('GET', `/v4/profile?access_token=${ADMIN_TOKEN}&page=1`)).status, 200);
      await app.request('GET', `/v4/regions?token=${queryToken}&api_key=${queryToken}`, { token: null });

      const upload = await app.request('POST', '/v4/images/upload', { body: { label: 'golden', region: 'eu-west' } });
      assert.equal(upload.status, 200);
      const uploadPath = new URL(upload.body.upload_to).pathname;
      const uploadToken = uploadPath.split('/').at(-1) as string;
      const put = await app.runtime.app?.inject({
        method: 'PUT',
        url: uploadPath,
        headers: { 'content-type': 'application/octet-stream' },
        payload: gzipSync(Buffer.from('a disk\n'.repeat(100))),
      });
      assert.equal(put?.statusCode, 200, put?.body);
      await app.request('PUT', `/${uploadPath.replace(/\//g, '//')}`, { token: null });

      const text = lines.join('\n');
      for (const secret of [ADMIN_TOKEN, queryToken, uploadToken]) assert.ok(!text.includes(secret), `${secret} is in the log`);
      assert.deepEqual(loggedUrls(lines), [
        `/v4/profile?access_token=${REDACTED}&page=1`,
        `/v4/regions?token=${REDACTED}&api_key=${REDACTED}`,
        '/v4/images/upload',
        `/uploads/images/${REDACTED}`,
        `///uploads//images//${REDACTED}`,
      ]);
    });
  });
}
