import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

/** A managed service made through the API (as `admin` unless a token is given); `pending` until probed. */
export async function addService(app: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await app.request('POST', '/v4/managed/services', { body: { label: 'watched', timeout: 5, ...body }, token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'pending');
  return res.body as { id: number; label: string };
}

export async function statusOf(app: TestApp, id: number, token?: string): Promise<string> {
  const res = await app.request('GET', `/v4/managed/services/${id}`, { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.status;
}

export interface IssueView {
  id: number;
  created: string;
  entity: { id: number; label: string; type: string; url: string };
  services: number[];
}

export async function openIssues(app: TestApp): Promise<IssueView[]> {
  const res = await app.request('GET', '/v4/managed/issues');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Waits (polling) until `check` holds; fails after a few seconds of it not holding. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting until ${what}`);
}
