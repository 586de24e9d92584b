import assert from 'node:assert/strict';
import { consoleTokens, givePassword } from '../oauth/helpers.ts';
import type { Caller } from './accounts.ts';
import type { TestApp } from './app.ts';

/**
 * Makes an object that `owner` owns and returns the value for one path parameter.
 * Every path parameter of an authenticated route needs an entry here; the
 * authorization test refuses to pass without one.
 */
export type Fixture = (app: TestApp, owner: Caller) => Promise<string>;

const ED25519_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE test@example';

async function created(app: TestApp, owner: Caller, url: string, body: unknown): Promise<{ id: number }> {
  const res = await app.request('POST', url, { token: owner.token, body });
  assert.equal(res.status, 200, `fixture POST ${url}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** One node per owner and app (from an image: it has a config, two disks and addresses), shared by the node fixtures. */
const fixtureNodes = new WeakMap<TestApp, Map<number, Promise<{ id: number; ipv4: string[] }>>>();
function fixtureNode(app: TestApp, owner: Caller): Promise<{ id: number; ipv4: string[] }> {
  const perApp = fixtureNodes.get(app) ?? new Map();
  fixtureNodes.set(app, perApp);
  let node = perApp.get(owner.accountId);
  if (!node) {
    node = created(app, owner, '/v4/node/instances', {
      region: 'us-east',
      type: 'g6-standard-1',
      image: 'node/debian12',
      root_pass: 'fixture-pass-1',
    }) as Promise<{ id: number; ipv4: string[] }>;
    perApp.set(owner.accountId, node);
  }
  return node;
}

/**
 * A tcp service at a name that resolves to loopback: accepted (names are checked when probed), and a
 * probe, if a test runs the due jobs, is refused by the egress policy before anything is sent.
 */
function fixtureService(app: TestApp, owner: Caller): Promise<{ id: number }> {
  return created(app, owner, '/v4/managed/services', {
    label: 'fixture',
    service_type: 'tcp',
    address: 'localhost:9',
    timeout: 1,
  });
}

/** One firewall per owner and app, enabled and assigned to the fixture node (its one device), shared by the firewall fixtures. */
const fixtureFirewalls = new WeakMap<TestApp, Map<number, Promise<{ id: number; deviceId: number }>>>();
function fixtureFirewall(app: TestApp, owner: Caller): Promise<{ id: number; deviceId: number }> {
  const perApp = fixtureFirewalls.get(app) ?? new Map();
  fixtureFirewalls.set(app, perApp);
  let firewall = perApp.get(owner.accountId);
  if (!firewall) {
    firewall = (async () => {
      const node = await fixtureNode(app, owner);
      const { id } = await created(app, owner, '/v4/networking/firewalls', {
        label: 'fixture-fw',
        rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' },
        devices: { nodes: [node.id] },
      });
      const devices = await app.request('GET', `/v4/networking/firewalls/${id}/devices`, { token: owner.token });
      assert.equal(devices.body.data.length, 1, 'the fixture firewall has its device');
      return { id, deviceId: devices.body.data[0].id as number };
    })();
    perApp.set(owner.accountId, firewall);
  }
  return firewall;
}

/** One domain per owner and app, with one A record, shared by the domain fixtures. */
const fixtureDomains = new WeakMap<TestApp, Map<number, Promise<{ id: number; recordId: number }>>>();
function fixtureDomain(app: TestApp, owner: Caller): Promise<{ id: number; recordId: number }> {
  const perApp = fixtureDomains.get(app) ?? new Map();
  fixtureDomains.set(app, perApp);
  let domain = perApp.get(owner.accountId);
  if (!domain) {
    domain = (async () => {
      const { id } = await created(app, owner, '/v4/domains', {
        domain: `fixture-${owner.accountId}.example`,
        type: 'master',
        soa_email: 'hostmaster@example.org',
      });
      const record = await created(app, owner, `/v4/domains/${id}/records`, { type: 'A', name: 'www', target: '192.0.2.10' });
      return { id, recordId: record.id };
    })();
    perApp.set(owner.accountId, domain);
  }
  return domain;
}

async function fixtureChild(app: TestApp, owner: Caller, what: 'configs' | 'disks'): Promise<string> {
  const node = await fixtureNode(app, owner);
  const res = await app.request('GET', `/v4/node/instances/${node.id}/${what}`, { token: owner.token });
  assert.ok(res.body.data.length > 0, `the fixture node has ${what}`);
  return String(res.body.data[0].id);
}

let fixtureCredentials = 0;

export const FIXTURES: Record<string, Fixture> = {
  nodeId: async (app, owner) => String((await fixtureNode(app, owner)).id),
  configId: (app, owner) => fixtureChild(app, owner, 'configs'),
  diskId: (app, owner) => fixtureChild(app, owner, 'disks'),
  address: async (app, owner) => (await fixtureNode(app, owner)).ipv4[0] ?? '',
  backupId: async (app, owner) => {
    // Written straight to the table: the fixture node is still provisioning (no worker runs here).
    const node = await fixtureNode(app, owner);
    const now = new Date().toISOString().slice(0, 19);
    const row = await app.runtime.ctx.db
      .insertInto('backups')
      .values({
        account_id: owner.accountId,
        node_id: node.id,
        type: 'snapshot',
        status: 'successful',
        label: 'fixture',
        region: 'us-east',
        content: '{}',
        created: now,
        updated: now,
        finished: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(row.id);
  },
  firewallId: async (app, owner) => String((await fixtureFirewall(app, owner)).id),
  deviceId: async (app, owner) => String((await fixtureFirewall(app, owner)).deviceId),
  domainId: async (app, owner) => String((await fixtureDomain(app, owner)).id),
  recordId: async (app, owner) => String((await fixtureDomain(app, owner)).recordId),
  contactId: async (app, owner) => String((await created(app, owner, '/v4/managed/contacts', { name: 'fixture' })).id),
  clientId: async (app, owner) =>
    String(
      (await created(app, owner, '/v4/account/oauth-clients', { label: 'fixture', redirect_uri: 'https://app.example/cb' })).id,
    ),
  // Each owner's own label: a tag of one account names nothing in another.
  label: async (app, owner) => {
    const label = `fixture-tag-${owner.accountId}`;
    await created(app, owner, '/v4/tags', { label });
    return label;
  },
  year: async () => String(new Date().getUTCFullYear()),
  month: async () => String(new Date().getUTCMonth() + 1),
  appId: async (app, owner) => {
    await givePassword(app, owner.username);
    await consoleTokens(app, owner.username);
    const apps = await app.request('GET', '/v4/profile/apps', { token: owner.token });
    assert.equal(apps.status, 200);
    return String(apps.body.data[0].id);
  },
  tokenId: async (app, owner) => String((await created(app, owner, '/v4/profile/tokens', { label: 'fixture', scopes: '*' })).id),
  sshKeyId: async (app, owner) =>
    String((await created(app, owner, '/v4/profile/sshkeys', { label: 'fixture', ssh_key: ED25519_KEY })).id),
  username: async (_app, owner) => owner.username,
  eventId: async (app, owner) => {
    await created(app, owner, '/v4/profile/tokens', { label: 'event fixture', scopes: '*' });
    const res = await app.request('GET', '/v4/account/events', { token: owner.token });
    assert.ok(res.body.data.length > 0, 'the fixture produced an event');
    return String(res.body.data[0].id);
  },
  stackscriptId: async (app, owner) =>
    String(
      (
        await created(app, owner, '/v4/node/stackscripts', {
          label: 'fixture',
          script: '#!/bin/bash\necho fixture\n',
          images: ['any/all'],
        })
      ).id,
    ),
  credentialId: async (app, owner) => {
    fixtureCredentials += 1;
    const body = { label: `fixture-${fixtureCredentials}`, password: 'fixture-secret' };
    return String((await created(app, owner, '/v4/managed/credentials', body)).id);
  },
  serviceId: async (app, owner) => String((await fixtureService(app, owner)).id),
  // An issue as a failed probe leaves it: open, naming the service.
  issueId: async (app, owner) => {
    const service = await fixtureService(app, owner);
    const row = await app.runtime.ctx.db
      .insertInto('managed_issues')
      .values({
        account_id: owner.accountId,
        service_id: service.id,
        label: 'fixture is down',
        created: new Date().toISOString().slice(0, 19),
        closed: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(row.id);
  },
  imageId: async (app, owner) => {
    const now = new Date().toISOString().slice(0, 19);
    const row = await app.runtime.ctx.db
      .insertInto('images')
      .values({
        id: `private/fixture-${owner.accountId}-${Date.now()}`,
        account_id: owner.accountId,
        label: 'fixture',
        description: null,
        created: now,
        updated: now,
        created_by: owner.username,
        deprecated: 0,
        is_public: 0,
        size: 1024,
        type: 'manual',
        expiry: null,
        eol: null,
        vendor: null,
        status: 'available',
        sort: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  },
};

/** Bodies that pass validation for write routes whose body has required fields, by operationId. */
export const VALID_BODIES: Record<string, unknown> = {
  createNodeInstance: { region: 'us-east', type: 'g6-nanode-1' },
  addNodeConfig: { label: 'matrix', devices: {} },
  addNodeDisk: { size: 1024 },
  resizeDisk: { size: 2048 },
  resetDiskPassword: { password: 'matrix-pass-1' },
  addNodeIP: { type: 'ipv4', public: true },
  allocateIP: { type: 'ipv4', public: true, node_id: 1 },
  assignIPs: { region: 'us-east', assignments: [{ address: '192.0.2.1', node_id: 1 }] },
  shareIPs: { node_id: 1, ips: [] },
  createSnapshot: { label: 'matrix' },
  restoreBackup: { node_id: 1 },
  resizeNodeInstance: { type: 'g6-standard-2' },
  rebuildNodeInstance: { image: 'node/debian12', root_pass: 'matrix-pass-1' },
  resetNodePassword: { root_pass: 'matrix-pass-1' },
  addStackScript: { label: 'matrix', script: '#!/bin/sh\n', images: ['any/all'] },
  createFirewalls: { label: 'matrix-fw', rules: { inbound_policy: 'DROP', outbound_policy: 'DROP' } },
  createFirewallDevice: { id: 1, type: 'node' },
  createDomain: { domain: 'matrix.example', type: 'master', soa_email: 'hostmaster@example.org' },
  cloneDomain: { domain: 'matrix-clone.example' },
  createDomainRecord: { type: 'A', target: '192.0.2.1' },
  createManagedCredential: { label: 'matrix', password: 'matrix-secret' },
  updateManagedCredentialUsernamePassword: { password: 'matrix-secret' },
  createTag: { label: 'matrix-tag' },
  setAccountUserPassword: { password: 'matrix-pass-1' },
};
