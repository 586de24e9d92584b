import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

/** A TCP rule that passes every check, with anything overridden. */
export function rule(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol: 'TCP',
    ports: '22, 80, 443',
    addresses: { ipv4: ['192.0.2.0/24'], ipv6: ['2001:db8::/32'] },
    action: 'ACCEPT',
    label: 'allow-web',
    description: 'Web and SSH',
    ...overrides,
  };
}

/** A create body: one inbound rule, both policies, with anything overridden. */
export function firewallBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    label: 'edge-fw',
    rules: { inbound: [rule()], outbound: [], inbound_policy: 'DROP', outbound_policy: 'ACCEPT' },
    ...overrides,
  };
}

let serial = 0;

/** Creates a firewall (a fresh label unless one is given) and returns its API object. */
export async function createFirewall(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  serial += 1;
  const res = await app.request('POST', '/v4/networking/firewalls', {
    body: firewallBody({ label: `fw-${serial}`, ...overrides }),
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, `create firewall: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Sets a firewall's status and asserts it took. */
export async function setStatus(app: TestApp, id: number, status: 'enabled' | 'disabled') {
  const res = await app.request('PUT', `/v4/networking/firewalls/${id}`, { body: { status } });
  assert.equal(res.status, 200, `set ${status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The fields the errors of a refusal name, in order. */
export function fieldsOf(body: { errors: { field?: string }[] }): (string | undefined)[] {
  return body.errors.map((e) => e.field);
}
