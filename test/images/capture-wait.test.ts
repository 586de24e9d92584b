import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTransition } from '../../src/admin/transitions.service.ts';
import { NODE_OPS } from '../../src/domain/nodes/node-operations.ts';
import { jobHandlers } from '../../src/job-handlers.ts';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { runDueWork } from '../helpers/jobs.ts';
import { createNode } from '../nodes/helpers.ts';
import { eventsOf, settle } from './helpers.ts';

/** A node from an image, just created (provisioning), and its main disk, still being written. */
async function newNodeDisk(app: TestApp) {
  const node = await createNode(app);
  const disks = await app.request('GET', `/v4/node/instances/${node.id}/disks`);
  const disk = disks.body.data.find((d: { filesystem: string }) => d.filesystem !== 'swap');
  assert.equal(disk?.status, 'not ready');
  return { node, disk } as { node: { id: number }; disk: { id: number; label: string; size: number } };
}

async function capture(app: TestApp, diskId: number) {
  const res = await app.request('POST', '/v4/images', { body: { disk_id: diskId, label: 'golden' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'creating');
  return res.body as { id: string; size: number };
}

/** Rounds of a minute of service time, running what is due (the waiting capture looks each round). */
async function rounds(app: TestApp, n: number, handlers?: readonly JobHandler[]): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    app.runtime.ctx.clock.advance(60_000);
    if (handlers) await new Worker(app.runtime.ctx, handlers, { pollMs: 10 }).drain();
    else await runDueWork(app);
  }
}

for (const dialect of DIALECTS) {
  describe(`a capture of a disk still being made [${dialect}]`, () => {
    test('waits for the disk: the image is creating and its event scheduled until the disk is ready', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { ctx } = app.runtime;
      // Provisioning held until the test lets it finish.
      await setTransition(ctx, 'node_provision', { mode: 'manual' });
      const { node, disk } = await newNodeDisk(app);
      const image = await capture(app, disk.id);
      assert.equal(image.size, disk.size);
      await rounds(app, 3);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.status, 'creating');
      const [waiting] = await eventsOf(app, me.accountId, 'disk_imagize');
      assert.deepEqual([waiting?.status, waiting?.entity_id], ['scheduled', node.id]);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/disks/${disk.id}`)).body.status, 'not ready');

      await setTransition(ctx, 'node_provision', { mode: 'default' });
      await settle(app);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}`)).body.status, 'running');
      const done = await app.request('GET', `/v4/images/${image.id}`);
      assert.deepEqual([done.body.status, done.body.label, done.body.size], ['available', 'golden', disk.size]);
      const [finished] = await eventsOf(app, me.accountId, 'disk_imagize');
      assert.deepEqual([finished?.status, finished?.percent_complete, finished?.message], ['finished', 100, '']);
      // A node made from it: what a client does once the image is available.
      await createNode(app, { image: image.id });
    });

    test('the node deleted while its disk is made: the image fails, its event says why', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { node, disk } = await newNodeDisk(app);
      const image = await capture(app, disk.id);
      assert.equal((await app.request('DELETE', `/v4/node/instances/${node.id}`)).status, 200);
      await settle(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).status, 404);
      const [failed] = await eventsOf(app, me.accountId, 'disk_imagize');
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.message, `Disk ${disk.id} was deleted before it could be captured`);
      const left = await app.runtime.ctx.db.selectFrom('images').select('id').where('id', '=', image.id).execute();
      assert.deepEqual(left, []);
    });

    test('a disk its node failed to write: the image fails, and a capture of it is then refused at once', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { node, disk } = await newNodeDisk(app);
      const image = await capture(app, disk.id);
      const failing = jobHandlers(false).map(
        (h): JobHandler =>
          h.kind === NODE_OPS.provision
            ? {
                ...h,
                run: (job) => {
                  if (job.payload.phase === 'finish') throw new Error('the host could not write the disks');
                  return h.run(job);
                },
              }
            : h,
      );
      await rounds(app, 30, failing);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}`)).body.status, 'offline', 'provisioning gave up');
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/disks/${disk.id}`)).body.status, 'not ready');
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).status, 404);
      const [failed] = await eventsOf(app, me.accountId, 'disk_imagize');
      assert.equal(failed?.status, 'failed');
      assert.match(failed?.message ?? '', new RegExp(`^Disk ${disk.id} could not be made`));

      const again = await app.request('POST', '/v4/images', { body: { disk_id: disk.id } });
      assert.deepEqual([again.status, again.body.errors[0].field], [400, 'disk_id']);
      assert.match(again.body.errors[0].reason, /could not be made/);
    });
  });
}
