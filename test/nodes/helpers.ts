import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { type CatalogDataT, DEFAULT_CATALOG_PATH } from '../../src/domain/catalog/catalog.ts';
import { type TestApp, tempDir } from '../helpers/app.ts';
import { runDueWork } from '../helpers/jobs.ts';

export { eventsOf } from '../identity/helpers.ts';

export const IMAGE = 'node/debian12';
export const ROOT_PASS = 'c0rrect-h0rse';

/** A request body for a node from an image, with anything overridden. */
export function nodeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { region: 'us-east', type: 'g6-standard-1', image: IMAGE, root_pass: ROOT_PASS, ...overrides };
}

/** A config's device map as the API shows it: all eight slots, null where no disk is given. */
export function deviceMap(disks: Record<string, number> = {}): Record<string, { disk_id: number } | null> {
  return Object.fromEntries(
    ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'].map((s) => [
      s,
      s in disks ? { disk_id: disks[s] as number, volume_id: null } : null,
    ]),
  );
}

/** Creates a node (from an image unless `image: null` or other overrides) and returns its API object. */
export async function createNode(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  const res = await app.request('POST', '/v4/node/instances', { body: nodeBody(overrides), ...(token ? { token } : {}) });
  assert.equal(res.status, 200, `create node: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An empty node: no image, so no disks or configs, and offline at once. */
export function createEmptyNode(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  return createNode(app, { image: undefined, root_pass: undefined, ...overrides }, token);
}

/**
 * Moves the service clock on (by `stepMs` a round) and runs due jobs until a round runs none but
 * watchers (probes, slave checks, which never end): every operation under way finishes.
 */
export async function settle(app: TestApp, stepMs = 60_000): Promise<void> {
  for (let round = 0; round < 50; round += 1) {
    app.runtime.ctx.clock.advance(stepMs);
    if ((await runDueWork(app)) === 0) return;
  }
  assert.fail('jobs kept coming');
}

export async function getNode(app: TestApp, id: number, token?: string) {
  const res = await app.request('GET', `/v4/node/instances/${id}`, token ? { token } : {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A node from an image that has finished provisioning: running, with its two disks and one config. */
export async function runningNode(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  const node = await createNode(app, overrides, token);
  await settle(app);
  return getNode(app, node.id, token);
}

/** A catalog file like the default one, changed by `change`; pass its path as `config.catalogPath`. */
export function catalogWith(t: TestContext, change: (data: CatalogDataT) => void): string {
  const data = JSON.parse(fs.readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as CatalogDataT;
  change(data);
  const file = path.join(tempDir(t), 'catalog.json');
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

/** Inserts a private image of the account straight into the table (images are another group's API). */
export async function privateImage(app: TestApp, accountId: number, fields: { status?: string; size?: number } = {}) {
  const now = new Date().toISOString().slice(0, 19);
  const row = await app.runtime.ctx.db
    .insertInto('images')
    .values({
      id: `private/t${accountId}-${Math.random().toString(36).slice(2, 10)}`,
      account_id: accountId,
      label: 'golden',
      description: null,
      created: now,
      updated: now,
      created_by: 'test',
      deprecated: 0,
      is_public: 0,
      size: fields.size ?? 2000,
      type: 'manual',
      expiry: null,
      eol: null,
      vendor: 'Debian',
      status: fields.status ?? 'available',
      sort: 0,
      region: null,
      blob_key: null,
      source_node_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A service clock that moves only when told to, so a test can stop between an operation's phases. */
export function manualClock(startMs = Date.parse('2030-01-01T00:00:00Z')) {
  let now = startMs;
  return {
    nowMs: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}
