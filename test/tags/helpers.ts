import assert from 'node:assert/strict';
import type { Reply, TestApp } from '../helpers/app.ts';

export { createDomain } from '../domains/helpers.ts';
export { admin, newAccount, newUser } from '../helpers/accounts.ts';
export { createEmptyNode } from '../nodes/helpers.ts';

function withToken(token: string | undefined, body?: unknown) {
  return { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) };
}

/** POST /tags, which must succeed. */
export async function makeTag(app: TestApp, body: Record<string, unknown>, token?: string): Promise<void> {
  const res = await app.request('POST', '/v4/tags', withToken(token, body));
  assert.equal(res.status, 200, `POST /tags ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  assert.deepEqual(res.body, { label: body.label });
}

/** The labels GET /tags lists (one page of 100). */
export async function tagLabels(app: TestApp, token?: string): Promise<string[]> {
  const res = await app.request('GET', '/v4/tags', withToken(token));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((t: { label: string }) => t.label);
}

/** GET /tags/{label}. */
export function taggedObjects(app: TestApp, label: string, token?: string, query = ''): Promise<Reply> {
  return app.request('GET', `/v4/tags/${encodeURIComponent(label)}${query}`, withToken(token));
}

/** `type:id` of each object a tagged-objects page lists, in order. */
export function kindsAndIds(res: Reply): string[] {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((o: { type: string; data: { id: number } }) => `${o.type}:${o.data.id}`);
}

/** The tags an object's own view shows. */
export async function tagsOn(app: TestApp, url: string): Promise<string[]> {
  const res = await app.request('GET', url);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.tags;
}
