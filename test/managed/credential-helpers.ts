import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

let serial = 0;

/** Secrets no other value in a test run contains, so a search for one finds only it. */
export function uniqueSecret(what: string): string {
  serial += 1;
  return `${what}-${process.pid}-${serial}-Zq8v`;
}

/** Creates a credential (a fresh label unless one is given) and returns its API object. */
export async function createCredential(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  serial += 1;
  const res = await app.request('POST', '/v4/managed/credentials', {
    body: { label: `cred-${serial}`, username: 'svc-user', password: 'svc-password', ...overrides },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, `create credential: ${JSON.stringify(res.body)}`);
  return res.body as { id: number; label: string; last_decrypted: string | null };
}

/** The account's credential labels, in list order. */
export async function labels(app: TestApp, token?: string): Promise<string[]> {
  const res = await app.request('GET', '/v4/managed/credentials', token ? { token } : {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((c: { label: string }) => c.label);
}
