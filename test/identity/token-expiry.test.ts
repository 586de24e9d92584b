import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TOKEN_EXPIRE } from '../../src/domain/profile/token.jobs.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`token expiry [${dialect}]`, () => {
    test('a token works until its expiry, then stops; the expiry job removes it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const expiry = new Date(ctx.clock.nowMs() + HOUR).toISOString();
      const created = await app.request('POST', '/v4/profile/tokens', { body: { label: 'short', expiry } });
      assert.equal(created.status, 200);
      const id = created.body.id;
      const value = created.body.token;

      const jobs = await ctx.db.selectFrom('jobs').selectAll().where('kind', '=', TOKEN_EXPIRE).execute();
      assert.equal(jobs.length, 1);
      assert.equal(jobs[0]?.run_at, Date.parse(`${created.body.expiry}Z`));
      assert.deepEqual(JSON.parse(jobs[0]?.payload ?? '{}'), { tokenId: id });

      assert.equal(await runDueJobs(app), 0, 'nothing is due before the expiry');
      assert.equal((await app.request('GET', '/v4/profile', { token: value })).status, 200);

      ctx.clock.advance(HOUR + 1000);
      assert.equal((await app.request('GET', '/v4/profile', { token: value })).status, 401, 'expired before the job ran');
      assert.equal((await app.request('GET', `/v4/profile/tokens/${id}`)).status, 404);
      const listed = await app.request('GET', '/v4/profile/tokens');
      assert.ok(!listed.body.data.some((d: { id: number }) => d.id === id));

      assert.equal(await runDueJobs(app), 1);
      const row = await ctx.db.selectFrom('tokens').select('id').where('id', '=', id).executeTakeFirst();
      assert.equal(row, undefined);
      assert.equal((await ctx.db.selectFrom('jobs').select('id').execute()).length, 0);
    });

    test('a token without expiry schedules nothing; a failed create schedules nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      assert.equal((await app.request('POST', '/v4/profile/tokens', { body: { label: 'forever' } })).status, 200);
      const bad = await app.request('POST', '/v4/profile/tokens', { body: { label: '', expiry: '2999-01-01T00:00:00Z' } });
      assert.equal(bad.status, 400);
      assert.equal((await ctx.db.selectFrom('jobs').select('id').execute()).length, 0);
    });

    test('a token revoked before its expiry leaves a harmless job', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const expiry = new Date(ctx.clock.nowMs() + HOUR).toISOString();
      const created = await app.request('POST', '/v4/profile/tokens', { body: { expiry } });
      assert.equal((await app.request('DELETE', `/v4/profile/tokens/${created.body.id}`)).status, 200);
      ctx.clock.advance(2 * HOUR);
      assert.equal(await runDueJobs(app), 1);
      assert.equal((await app.request('GET', '/v4/profile')).status, 200, 'the other tokens are untouched');
    });
  });
}
