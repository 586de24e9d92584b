import assert from 'node:assert/strict';
import type { Reply, TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';

export { admin, newAccount, newUser } from '../helpers/accounts.ts';
export { createEmptyNode, createNode, eventsOf, getNode, manualClock, ROOT_PASS, runningNode, settle } from '../nodes/helpers.ts';

/** POST to an action of a node (`backups`, `clone`, `resize`, ...). */
export function act(app: TestApp, nodeId: number, action: string, body?: unknown, token?: string): Promise<Reply> {
  return app.request('POST', `/v4/node/instances/${nodeId}/${action}`, {
    ...(body === undefined ? {} : { body }),
    ...(token ? { token } : {}),
  });
}

export function ok(res: Reply, what: string): Reply {
  assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
  return res;
}

/** A 400 whose first error names `field` (when given) and whose reason matches `reason` (when given). */
export function badRequest(res: Reply, what: string, field?: string, reason?: RegExp): void {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
  if (field !== undefined) assert.equal(res.body.errors[0].field, field, `${what}: field`);
  if (reason) assert.match(res.body.errors[0].reason, reason, `${what}: reason`);
}

/** Runs the jobs due now after moving the clock by 1 ms: an operation just scheduled starts. */
export async function startDue(app: TestApp): Promise<void> {
  app.runtime.ctx.clock.advance(1);
  await runDueJobs(app);
}

export async function disksOf(app: TestApp, nodeId: number) {
  const res = ok(await app.request('GET', `/v4/node/instances/${nodeId}/disks`), 'disks');
  return res.body.data as { id: number; label: string; size: number; filesystem: string; status: string }[];
}

export async function configsOf(app: TestApp, nodeId: number) {
  const res = ok(await app.request('GET', `/v4/node/instances/${nodeId}/configs`), 'configs');
  return res.body.data as { id: number; label: string; devices: Record<string, { disk_id: number } | null>; kernel: string }[];
}

/** Disks as label/size/filesystem, and configs as label/kernel with the labels of the disks in their slots. */
export async function layoutOf(app: TestApp, nodeId: number) {
  const disks = await disksOf(app, nodeId);
  const labelOf = new Map(disks.map((d) => [d.id, d.label]));
  const configs = await configsOf(app, nodeId);
  return {
    disks: disks.map((d) => ({ label: d.label, size: d.size, filesystem: d.filesystem })),
    configs: configs.map((c) => ({
      label: c.label,
      kernel: c.kernel,
      devices: Object.fromEntries(Object.entries(c.devices).map(([slot, d]) => [slot, d && labelOf.get(d.disk_id)])),
    })),
  };
}

export async function rootPassHash(app: TestApp, nodeId: number): Promise<string | null> {
  const row = await app.runtime.ctx.db
    .selectFrom('nodes')
    .select('root_pass_hash')
    .where('id', '=', nodeId)
    .executeTakeFirstOrThrow();
  return row.root_pass_hash;
}
