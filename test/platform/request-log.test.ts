import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { REDACTED, redactUrl as redactUrlFor } from '../../src/http/request-log.ts';
import { CREDENTIAL_PATHS } from '../../src/routes.ts';
import { ADMIN_TOKEN, buildTestApp, DIALECTS } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';

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
    assert.equal(redactUrl('/uploads/images/0123abcd'), `/uploads/images/${REDACTED}`);
    assert.equal(redactUrl('//uploads//images/0123abcd/more?x=1'), `//uploads//images/${REDACTED}/${REDACTED}?x=1`);
    assert.equal(redactUrl('/uploads/%69mages/0123abcd'), `/uploads/%69mages/${REDACTED}`);
    assert.equal(redactUrl('/uploads/images'), '/uploads/images');
    assert.equal(redactUrl('/v4/images/uploads/images'), '/v4/images/uploads/images');
    assert.equal(redactUrlFor('/exports/x/secret', ['/uploads/images', '/exports/x']), `/exports/x/${REDACTED}`);
  });
});

for (const dialect of DIALECTS) {
  describe(`request log [${dialect}]`, () => {
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
