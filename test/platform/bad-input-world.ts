import assert from 'node:assert/strict';
import { admin, newUser } from '../helpers/accounts.ts';
import type { TestApp } from '../helpers/app.ts';
import { FIXTURES } from '../helpers/fixtures.ts';
import { KEYS } from '../identity/helpers.ts';
import { settle } from '../nodes/helpers.ts';
import { snapshotOf } from '../operator/helpers.ts';

/**
 * The account the bad-input suite attacks: real objects of every kind, so that every path
 * parameter names something that exists, and valid request bodies to spoil one field at a time.
 */
export interface World {
  /** A real value for every path parameter of the API document, by parameter name. */
  params: Record<string, string>;
  /** The values for operations that need a node that is shut down and has free disk space. */
  offlineParams: Record<string, string>;
  /** Real ids for integer body fields that refer to objects (`disk_id`, `node_id`...). */
  refs: Record<string, number>;
}

const PUBLIC_PARAMS: Record<string, string> = { regionId: '/v4/regions', typeId: '/v4/node/types', kernelId: '/v4/node/kernels' };

/** Operations refused on a running node or on one without free space. */
const OFFLINE_OPERATIONS = new Set(['resetNodePassword', 'resetDiskPassword', 'addNodeDisk', 'resizeDisk']);

async function ok(app: TestApp, method: string, url: string, body?: unknown) {
  const res = await app.request(method, url, body === undefined ? {} : { body });
  assert.equal(res.status, 200, `${method} ${url}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A node shut down and moved to a bigger type without growing its disks: room for another disk. */
async function offlineNode(app: TestApp): Promise<Record<string, string>> {
  const node = await ok(app, 'POST', '/v4/node/instances', {
    region: 'us-east',
    type: 'g6-standard-1',
    image: 'node/debian12',
    root_pass: 'bad-input-pass-1',
  });
  await settle(app);
  await ok(app, 'POST', `/v4/node/instances/${node.id}/shutdown`);
  await settle(app);
  await ok(app, 'POST', `/v4/node/instances/${node.id}/resize`, { type: 'g6-standard-2', allow_auto_disk_resize: false });
  await settle(app);
  const disks = await ok(app, 'GET', `/v4/node/instances/${node.id}/disks`);
  const configs = await ok(app, 'GET', `/v4/node/instances/${node.id}/configs`);
  assert.equal((await ok(app, 'GET', `/v4/node/instances/${node.id}`)).status, 'offline');
  return { nodeId: String(node.id), diskId: String(disks.data[0].id), configId: String(configs.data[0].id) };
}

/**
 * Makes a running node (disks, a config, an address, backups on, a backup), a node that is shut
 * down, a StackScript, an image, an SSH key, a token, a restricted user and an event.
 */
export async function furnish(app: TestApp): Promise<World> {
  const owner = await admin(app);
  const params: Record<string, string> = {};
  for (const [name, fixture] of Object.entries(FIXTURES)) {
    if (name !== 'username') params[name] = await fixture(app, owner);
  }
  // Another user than the caller (so that changing or deleting it leaves the caller's token working), restricted so it takes grants.
  params.username = (await newUser(app, owner.accountId, { restricted: true })).username;
  for (const [name, url] of Object.entries(PUBLIC_PARAMS)) {
    const res = await app.request('GET', url, { token: null });
    assert.equal(res.status, 200, `GET ${url}`);
    params[name] = String(res.body.data[0].id);
  }
  await settle(app);
  await ok(app, 'POST', `/v4/node/instances/${params.nodeId}/backups/enable`);
  assert.equal((await ok(app, 'GET', `/v4/node/instances/${params.nodeId}`)).status, 'running');
  const refs = {
    node_id: Number(params.nodeId),
    disk_id: Number(params.diskId),
    config_id: Number(params.configId),
    backup_id: Number(params.backupId),
    stackscript_id: Number(params.stackscriptId),
  };
  return { params, offlineParams: { ...params, ...(await offlineNode(app)) }, refs };
}

/** The path parameter values for an operation. */
export function paramsFor(world: World, operationId: string): Record<string, string> {
  return OFFLINE_OPERATIONS.has(operationId) ? world.offlineParams : world.params;
}

let serial = 0;

/** A valid body for an operation, with fresh labels and names so that no two clash; `{}` where that is valid. */
export function validBody(operationId: string, world: World): Record<string, unknown> {
  serial += 1;
  const n = `${process.pid}x${serial}`;
  const bodies: Record<string, () => Record<string, unknown>> = {
    createImage: () => ({ disk_id: world.refs.disk_id, label: `image-${n}` }),
    uploadImage: () => ({ label: `upload-${n}`, region: 'us-east' }),
    createPersonalAccessToken: () => ({ label: `token-${n}`, scopes: 'nodes:read_only' }),
    addSSHKey: () => ({ label: `key-${n}`, ssh_key: KEYS.ed25519 }),
    createUser: () => ({ username: `bad${n}`, email: `bad${n}@example.com` }),
    addStackScript: () => ({ label: `script-${n}`, script: '#!/bin/sh\necho hi\n', images: ['any/all'] }),
    createFirewalls: () => ({
      label: `fw-${n}`,
      rules: {
        inbound: [
          { protocol: 'TCP', ports: '22, 80', addresses: { ipv4: ['192.0.2.0/24'], ipv6: ['2001:db8::/32'] }, action: 'ACCEPT' },
        ],
        outbound: [],
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
      },
    }),
    createFirewallDevice: () => ({ id: world.refs.node_id, type: 'node' }),
    updateFirewallRules: () => ({
      inbound: [
        { protocol: 'UDP', ports: '53', addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT', label: 'dns', description: 'DNS' },
      ],
      inbound_policy: 'DROP',
    }),
    createNodeInstance: () => ({ region: 'us-east', type: 'g6-nanode-1' }),
    createDomain: () => ({
      domain: `bad-${n}.example`,
      type: 'master',
      soa_email: 'hostmaster@example.org',
      master_ips: ['192.0.2.1'],
      axfr_ips: ['2001:db8::1'],
      ttl_sec: 300,
      description: 'bad input',
      group: 'bad',
    }),
    cloneDomain: () => ({ domain: `clone-${n}.example` }),
    createTag: () => ({ label: `tag-${n}`, nodes: [world.refs.node_id] }),
    createManagedCredential: () => ({ label: `cred-${n}`, username: 'operator', password: 'bad-input-pass-1' }),
    updateManagedCredentialUsernamePassword: () => ({ username: 'operator', password: 'bad-input-pass-2' }),
    createClient: () => ({ label: `client-${n}`, redirect_uri: 'https://app.example/cb' }),
    createManagedService: () => ({
      label: `service-${n}`,
      service_type: 'url',
      // A name: accepted, and refused by the egress policy before anything is sent if it is ever probed.
      address: 'http://localhost:9/health?full=1',
      timeout: 5,
      body: 'ok',
      consultation_group: 'on-call',
      notes: 'bad input',
    }),
    createDomainRecord: () => ({ type: 'MX', name: `mail${serial}`, target: 'mx.example.org', priority: 10, ttl_sec: 3600 }),
    updateDomainRecord: () => ({ name: `renamed${serial}`, ttl_sec: 300 }),
    addNodeConfig: () => ({ label: `config-${n}`, devices: {} }),
    addNodeDisk: () => ({ size: 1, label: `disk-${n}`, filesystem: 'raw' }),
    resetDiskPassword: () => ({ password: 'bad-input-pass-1' }),
    resizeDisk: () => ({ size: 4096 }),
    addNodeIP: () => ({ type: 'ipv4', public: false }),
    createSnapshot: () => ({ label: `snap-${n}` }),
    restoreBackup: () => ({ node_id: world.refs.node_id, overwrite: true }),
    cloneNodeInstance: () => ({ region: 'us-east', type: 'g6-standard-1' }),
    resizeNodeInstance: () => ({ type: 'g6-standard-4', allow_auto_disk_resize: false }),
    rebuildNodeInstance: () => ({ image: 'node/debian12', root_pass: 'bad-input-pass-1' }),
    resetNodePassword: () => ({ root_pass: 'bad-input-pass-1' }),
  };
  return bodies[operationId]?.() ?? {};
}

/** Tables whose rows are the observable state; a snapshot's sequence values are not (PostgreSQL spends them on refused inserts). */
export type State = Map<string, Set<string>>;

/** Every row of every table, from the operator's snapshot (GET /admin/snapshot). */
export async function stateOf(app: TestApp): Promise<State> {
  const state: State = new Map();
  let rows: Set<string> | undefined;
  for (const line of (await snapshotOf(app)).trim().split('\n')) {
    if (line.startsWith('[')) {
      rows?.add(line);
      continue;
    }
    const header = JSON.parse(line) as { table?: string };
    rows = header.table === undefined ? undefined : new Set();
    if (header.table !== undefined && rows) state.set(header.table, rows);
  }
  return state;
}

/** What changed between two states, one line a table: rows gone and rows added, with an example of each. */
export function stateChanges(before: State, after: State): string[] {
  const out: string[] = [];
  for (const [table, rows] of after) {
    const old = before.get(table) ?? new Set<string>();
    const added = [...rows].filter((r) => !old.has(r));
    const gone = [...old].filter((r) => !rows.has(r));
    if (added.length === 0 && gone.length === 0) continue;
    const example = (r: string | undefined) => (r === undefined ? '' : ` ${r.slice(0, 160)}`);
    out.push(`${table}: -${gone.length}${example(gone[0])} +${added.length}${example(added[0])}`);
  }
  return out;
}
