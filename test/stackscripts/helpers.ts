import assert from 'node:assert/strict';
import type { Caller } from '../helpers/accounts.ts';
import type { Reply, TestApp } from '../helpers/app.ts';

export const SCRIPT = '#!/bin/bash\n# <UDF name="pw" label="Password" example="hunter2" />\necho "$PW"\n';

/** Public images of the default catalog. */
export const DEBIAN = 'node/debian12';
export const UBUNTU = 'node/ubuntu24.04';

/** POSTs a script (private, deploying to any image, unless the body says otherwise) and expects 200. */
export async function createScript(app: TestApp, owner: Caller, body: Record<string, unknown> = {}) {
  const res = await app.request('POST', '/v4/node/stackscripts', {
    token: owner.token,
    body: { label: 'a-stackscript', script: SCRIPT, images: ['any/all'], ...body },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The fields of a 400, in order. */
export function fieldsOf(res: Reply): string[] {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  return res.body.errors.map((e: { field?: string }) => e.field);
}

export function filterHeader(filter: unknown): { 'x-filter': string } {
  return { 'x-filter': JSON.stringify(filter) };
}

export function idsOf(res: Reply): number[] {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((s: { id: number }) => s.id);
}
