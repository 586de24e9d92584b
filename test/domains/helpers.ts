import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { systemTool } from '../helpers/system-tools.ts';

export { eventsOf } from '../identity/helpers.ts';

let serial = 0;

/** A domain name no other test uses. */
export function freshDomain(prefix = 'zone'): string {
  serial += 1;
  return `${prefix}-${process.pid}-${serial}.example`;
}

/** A master domain's create body (a fresh name unless one is given), with anything overridden. */
export function domainBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { domain: freshDomain(), type: 'master', soa_email: 'hostmaster@example.org', ...overrides };
}

/** Adds a domain and returns its API object. */
export async function createDomain(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  const res = await app.request('POST', '/v4/domains', { body: domainBody(overrides), ...(token ? { token } : {}) });
  assert.equal(res.status, 200, `create domain: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Adds a record to a domain and returns its API object. */
export async function addRecord(app: TestApp, domainId: number, body: Record<string, unknown>, token?: string) {
  const res = await app.request('POST', `/v4/domains/${domainId}/records`, { body, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, `add ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Runs the due jobs (the renders), then reads the domain's zone file lines. */
export async function renderedZone(app: TestApp, domainId: number): Promise<string[]> {
  await runDueJobs(app);
  const res = await app.request('GET', `/v4/domains/${domainId}/zone-file`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.zone_file;
}

/** The serial in a rendered zone's SOA line. */
export function serialOf(lines: readonly string[]): number {
  const soa = lines.find((l) => / IN SOA /.test(l));
  assert.ok(soa, `a SOA line in ${JSON.stringify(lines)}`);
  return Number(soa.split(/\s+/)[6]);
}

/** The fields a refusal names, in order. */
export function fieldsOf(body: { errors: { field?: string }[] }): (string | undefined)[] {
  return body.errors.map((e) => e.field);
}

/** named-checkzone's verdict on a zone file: its output, or a failure naming what it refused. */
export function checkZone(dir: string, origin: string, lines: readonly string[]): string {
  const file = path.join(dir, `${origin}.zone`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const checker = systemTool('named-checkzone');
  try {
    return execFileSync(checker, [origin, file], { encoding: 'utf8' });
  } catch (error) {
    const out = error as { stdout?: string; stderr?: string };
    assert.fail(`named-checkzone refused the zone:\n${out.stdout}${out.stderr}\n--- zone ---\n${lines.join('\n')}`);
  }
}
