import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

for (const dialect of DIALECTS) {
  describe(`health and metrics [${dialect}]`, () => {
    test('healthz answers without a token (readyz: readiness.test.ts)', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const health = await app.request('GET', '/healthz', { token: null });
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
    });

    test('metrics count requests per route and status, with latency and queue depth', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await app.request('GET', '/v4/regions');
      await app.request('GET', '/v4/regions');
      await app.request('GET', '/v4/regions/nowhere');
      await app.request('GET', '/v4/profile', { token: null });
      const { ctx } = app.runtime;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.pending', runAt: ctx.clock.nowMs() + 60_000 });
      const res = await app.request('GET', '/metrics', { token: null });
      assert.equal(res.status, 200);
      const text = String(res.body);
      assert.match(text, /http_requests_total\{method="GET",route="\/v4\/regions",status="200"\} 2/);
      assert.match(text, /http_requests_total\{method="GET",route="\/v4\/regions\/:regionId",status="404"\} 1/);
      assert.match(text, /http_requests_total\{method="GET",route="\/v4\/profile",status="401"\} 1/);
      // Latency by buckets; how long each took depends on the machine, not on the service.
      assert.match(text, /http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/v4\/regions",status="200"\} \d/);
      assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/v4\/regions",status="200"\} 2/);
      assert.match(text, /http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v4\/profile",status="401"\} 1/);
      assert.match(text, /http_request_duration_seconds_sum\{method="GET",route="\/v4\/profile",status="401"\} [0-9.e-]+\n/);
      // Buckets count cumulatively: each holds at least what the one below holds.
      const buckets = [
        ...text.matchAll(
          /http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/v4\/regions",status="200"\} (\d+)/g,
        ),
      ].map((m) => Number(m[1]));
      assert.equal(buckets.length, 13);
      assert.deepEqual(
        buckets,
        [...buckets].sort((a, b) => a - b),
      );
      assert.equal(buckets.at(-1), 2);
      assert.match(text, /# TYPE http_requests_total counter\n/);
      assert.match(text, /# TYPE http_request_duration_seconds histogram\n/);
      assert.match(text, /cumulo_jobs_queued 1/);
    });
  });
}
