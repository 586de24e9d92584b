import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { keepAutomaticImage } from '../../src/domain/images/automatic-image.service.ts';
import { findDeployableImage } from '../../src/domain/images/image-deploy.ts';
import { ApiError } from '../../src/errors.ts';
import { toTimestamp } from '../../src/time/timestamp.ts';
import { insertPrivateImage } from '../catalog/helpers.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { grant } from './helpers.ts';

const DAY = 24 * 3600_000;

async function keep(app: TestApp, accountId: number, image: string | null = 'node/debian12') {
  const { ctx } = app.runtime;
  await ctx.db.transaction().execute((trx) =>
    keepAutomaticImage(trx, ctx, {
      accountId,
      nodeId: 41,
      nodeLabel: 'web-1',
      region: 'us-east',
      disk: { id: 7, label: 'Debian 12 Disk', size: 25088, image },
      createdBy: 'admin',
    }),
  );
  const rows = await ctx.db.selectFrom('images').selectAll().where('type', '=', 'automatic').orderBy('num').execute();
  const row = rows.at(-1);
  assert.ok(row);
  return row;
}

/** An expiry (second precision) at `expectedMs`, give or take the second the test took. */
function assertExpiry(expiry: string | null, expectedMs: number): void {
  assert.ok(expiry);
  const ms = Date.parse(`${expiry}Z`);
  assert.ok(Math.abs(ms - expectedMs) <= 2000, `${expiry} is not ${toTimestamp(expectedMs)}`);
}

/** The 400 on `image` that findDeployableImage throws, or null when the image deploys. */
async function refusal(run: () => Promise<unknown>): Promise<ApiError | null> {
  try {
    await run();
    return null;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
}

for (const dialect of DIALECTS) {
  describe(`automatic images [${dialect}]`, () => {
    test('a deleted node keeps an available automatic image of its disk until the retention ends', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const me = await admin(app);
      const created = ctx.clock.nowMs();
      const row = await keep(app, me.accountId);
      assert.equal(row.source_node_id, 41);

      const view = await app.request('GET', `/v4/images/${row.id}`);
      assert.equal(view.status, 200);
      assert.equal(view.body.type, 'automatic');
      assert.equal(view.body.status, 'available');
      assert.equal(view.body.size, 25088);
      assert.equal(view.body.vendor, 'Debian');
      assert.equal(view.body.created_by, 'admin');
      assertExpiry(view.body.expiry, created + 7 * DAY);
      const listed = await app.request('GET', '/v4/images', { headers: { 'x-filter': '{"type":"automatic"}' } });
      assert.deepEqual(
        listed.body.data.map((i: { id: string }) => i.id),
        [row.id],
      );

      ctx.clock.advance(7 * DAY - 60_000);
      await runDueJobs(app);
      assert.equal((await app.request('GET', `/v4/images/${row.id}`)).status, 200);
      ctx.clock.advance(61_000);
      assert.equal(await runDueJobs(app), 1);
      assert.equal((await app.request('GET', `/v4/images/${row.id}`)).status, 404);
    });

    test('the retention is configurable, and manual images never expire', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { automaticImageRetentionDays: 2 } });
      const { ctx } = app.runtime;
      const me = await admin(app);
      const manual = await insertPrivateImage(app, me.accountId);
      const created = ctx.clock.nowMs();
      const row = await keep(app, me.accountId, null);
      assert.equal(row.vendor, null);
      assertExpiry(row.expiry, created + 2 * DAY);
      ctx.clock.advance(2 * DAY + 1000);
      await runDueJobs(app);
      assert.equal((await app.request('GET', `/v4/images/${row.id}`)).status, 404);
      assert.equal((await app.request('GET', `/v4/images/${manual.id}`)).status, 200);
    });
  });

  describe(`deployable images [${dialect}]`, () => {
    test('public images and the account available private images deploy; others are a 400 on image', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const me = await admin(app);
      const scope = { accountId: me.accountId, restrictedUserId: null };
      const mine = await insertPrivateImage(app, me.accountId, { size: 3000, vendor: 'Debian', label: 'gold' });
      const pending = await insertPrivateImage(app, me.accountId, { status: 'pending_upload' });
      const creating = await insertPrivateImage(app, me.accountId, { status: 'creating' });
      const other = await newAccount(app);
      const theirs = await insertPrivateImage(app, other.accountId);

      const pub = await findDeployableImage(ctx.db, ctx, scope, 'node/debian12');
      assert.deepEqual(pub, { id: 'node/debian12', size: 1300, vendor: 'Debian', label: 'Debian 12' });
      const priv = await findDeployableImage(ctx.db, ctx, scope, mine.id);
      assert.deepEqual(priv, { id: mine.id, size: 3000, vendor: 'Debian', label: 'gold' });
      const deprecated = await findDeployableImage(ctx.db, ctx, scope, 'node/debian10');
      assert.equal(deprecated.id, 'node/debian10');

      for (const id of [pending.id, creating.id, theirs.id, 'node/nope', 'private/999999', '']) {
        const err = await refusal(() => findDeployableImage(ctx.db, ctx, scope, id));
        assert.ok(err, id);
        assert.equal(err.status, 400, id);
        assert.equal(err.errors[0]?.field, 'image', id);
      }
      const notReady = await refusal(() => findDeployableImage(ctx.db, ctx, scope, pending.id));
      assert.match(notReady?.errors[0]?.reason ?? '', /pending_upload/);
    });

    test('a restricted user deploys a private image only with a grant on it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const me = await admin(app);
      const image = await insertPrivateImage(app, me.accountId);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      const scope = { accountId: me.accountId, restrictedUserId: restricted.userId };
      assert.equal((await refusal(() => findDeployableImage(ctx.db, ctx, scope, image.id)))?.status, 400);
      assert.equal(await refusal(() => findDeployableImage(ctx.db, ctx, scope, 'node/debian12')), null);
      await grant(app, restricted, 'image', image.num, 'read_only');
      assert.equal(await refusal(() => findDeployableImage(ctx.db, ctx, scope, image.id)), null);
    });
  });
}
