import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, DIALECTS, tempDir } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { createNode, runningNode } from '../nodes/helpers.ts';
import { cumulo, type OperatorApp, ok, operatorApp, restoreInto, snapshotOf } from './helpers.ts';

/** State of every kind: nodes with disks, configs and addresses, tags, a deleted node, a domain with a record and its zone file, events, held and queued jobs, operator settings. */
async function richState(app: OperatorApp) {
  const kept = await runningNode(app, { tags: ['web', 'prod'] });
  const gone = await runningNode(app, { region: 'eu-west' });
  assert.equal((await app.request('DELETE', `/v4/node/instances/${gone.id}`)).status, 200);
  await runDueJobs(app);
  await ok(app.request('POST', '/v4/profile/tokens', { body: { label: 'ci', scopes: 'nodes:read_only' } }));
  const domain = await ok(
    app.request('POST', '/v4/domains', { body: { domain: 'snap.example', type: 'master', soa_email: 'dns@snap.example' } }),
  );
  await ok(app.request('POST', `/v4/domains/${domain.id}/records`, { body: { type: 'A', name: 'www', target: '192.0.2.1' } }));
  await runDueJobs(app); // the domain's zone is rendered
  const credential = await ok(
    app.request('POST', '/v4/managed/credentials', { body: { label: 'snap-db', username: 'snap-user', password: 'snap-pass' } }),
  );
  await ok(app.request('GET', '/v4/managed/credentials/sshkey'));
  await ok(app.admin('PUT', '/admin/transitions/node_shutdown', { body: { mode: 'manual' } }));
  await ok(app.admin('PUT', '/admin/transitions/node_boot', { body: { seconds: 45.5 } }));
  await ok(app.request('POST', `/v4/node/instances/${kept.id}/shutdown`));
  await runDueJobs(app); // started; the finish is held
  await createNode(app, { label: 'still-provisioning' });
  await ok(app.admin('PUT', '/admin/faults', { body: { error_rate: 0.25, latency_ms: 5, match: 'POST /node/*' } }));
  await ok(app.admin('PUT', '/admin/regions/ap-south', { body: { status: 'outage' } }));
  await ok(app.admin('POST', '/admin/clock/advance', { body: { seconds: 60 } }));
  const info = await ok(app.admin('GET', '/admin/info'));
  assert.equal(info.jobs.held, 1);
  assert.ok(info.jobs.queued > 0);
  return { deletedId: gone.id as number, credentialId: credential.id as number };
}

function lines(snapshot: string): unknown[] {
  return snapshot
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function tableOf(snapshot: string, name: string) {
  const all = lines(snapshot);
  const at = all.findIndex((l) => (l as { table?: string }).table === name);
  const header = all[at] as { columns: string[]; sequence: number };
  const rows: unknown[][] = [];
  for (const l of all.slice(at + 1)) {
    if (!Array.isArray(l)) break;
    rows.push(l);
  }
  return { ...header, rows };
}

for (const dialect of DIALECTS) {
  describe(`snapshot and restore [${dialect}]`, () => {
    test('a versioned NDJSON document of every table; snapshot -> restore -> snapshot is byte for byte the same', async (t) => {
      const app = await operatorApp(t, dialect);
      await richState(app);
      const first = await snapshotOf(app);
      const [header, ...rest] = lines(first);
      assert.deepEqual(header, {
        format: 'cumulo-snapshot',
        format_version: 1,
        migrations: [
          '0001-platform',
          '0002-compute',
          '0003-operator',
          '0004-ip-allowances',
          '0005-bootstrap-token-prefixes',
          '0006-firewalls',
          '0007-ipv6-blocks',
          '0008-ip-shares',
          '0010-domains',
          '0011-slave-zones',
          '0012-managed-contacts-node-settings',
          '0013-managed-credentials',
          '0014-managed-services',
          '0015-oauth-clients',
          '0016-user-passwords',
          '0017-oauth-authorizations',
          '0018-job-concurrency-keys',
          '0019-managed-service-reprobes',
          '0020-oauth-grant-families',
          '0021-console-tickets',
          '0022-node-samples',
          '0023-compute-hosts',
          '0024-address-order-index',
          '0025-node-lists',
          '0026-job-claim-order',
          '0027-job-claim-function',
          '0028-region-site-type',
          '0029-event-records',
          '0030-firewall-rules-version',
          '0031-user-sign-ins',
          '0032-private-images-first',
          '0033-compute-host-disk-capacity',
        ],
        blobs: 'by-key',
      });
      const tables = rest
        .filter((l) => !Array.isArray(l) && (l as { table?: string }).table)
        .map((l) => (l as { table: string }).table);
      for (const name of [
        'accounts',
        'users',
        'tokens',
        'nodes',
        'disks',
        'configs',
        'ip_addresses',
        'events',
        'jobs',
        'tags',
        'entity_tags',
        'regions',
        'images',
        'operator_settings',
        'domains',
        'domain_records',
        'domain_zone_files',
        'domain_slave_zones',
        'managed_credentials',
        'managed_ssh_keys',
        'managed_contacts',
        'managed_node_settings',
        'managed_services',
        'managed_issues',
        'oauth_clients',
        'oauth_apps',
        'oauth_codes',
        'oauth_refresh_tokens',
      ]) {
        assert.ok(tables.includes(name), `${name} is in the snapshot`);
      }
      assert.ok(
        tables.indexOf('accounts') < tables.indexOf('users') && tables.indexOf('nodes') < tables.indexOf('disks'),
        'parents first',
      );
      assert.deepEqual(rest.at(-1), { end: true, tables: tables.length, rows: rest.filter(Array.isArray).length });
      assert.ok(
        tableOf(first, 'jobs').rows.some((r) => r.includes('held')),
        'held jobs are in it',
      );
      assert.ok(tableOf(first, 'operator_settings').rows.length >= 4, 'operator settings are in it');

      const restored = await restoreInto(app, first);
      assert.equal(restored.status, 200, JSON.stringify(restored.body));
      assert.equal(restored.body.tables, tables.length);
      assert.equal(await snapshotOf(app), first);
    });

    test('restore replaces all state; ids continue after the restored sequences; the operator settings come back', async (t) => {
      const app = await operatorApp(t, dialect);
      const { deletedId, credentialId } = await richState(app);
      const sshKey = (await ok(app.request('GET', '/v4/managed/credentials/sshkey'))).ssh_key;
      const saved = await snapshotOf(app);
      const nodeSequence = tableOf(saved, 'nodes').sequence;
      assert.ok(nodeSequence >= 3 && deletedId <= nodeSequence);

      await ok(app.admin('POST', '/admin/reset'));
      for (let i = 0; i < 5; i += 1) await createNode(app, { label: `after-reset-${i}` });
      assert.equal((await restoreInto(app, saved)).status, 200);
      const list = await ok(app.request('GET', '/v4/node/instances'));
      assert.deepEqual(list.data.map((n: { label: string }) => n.label).includes('still-provisioning'), true);
      assert.ok(!list.data.some((n: { label: string }) => n.label.startsWith('after-reset')));
      await ok(app.admin('DELETE', '/admin/faults'));
      const created = await createNode(app);
      assert.equal(created.id, nodeSequence + 1, 'the next id follows the restored sequence, not the largest id left');
      const transitions = await ok(app.admin('GET', '/admin/transitions'));
      const byKind = Object.fromEntries(transitions.data.map((x: { kind: string }) => [x.kind, x]));
      assert.equal(byKind.node_shutdown.mode, 'manual');
      assert.equal(byKind.node_shutdown.held.length, 1);
      assert.equal(byKind.node_boot.seconds, 45.5);
      const info = await ok(app.admin('GET', '/admin/info'));
      assert.equal(info.clock.offset_seconds, 60);
      const revealed = await ok(app.admin('POST', `/admin/managed/credentials/${credentialId}/reveal`));
      assert.deepEqual([revealed.username, revealed.password], ['snap-user', 'snap-pass'], 'sealed values come back and open');
      assert.equal((await ok(app.request('GET', '/v4/managed/credentials/sshkey'))).ssh_key, sshKey);
    });

    test('refuses a document of another schema version, not a snapshot, cut off or naming unknown tables (400), changing nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      await runningNode(app);
      const good = await snapshotOf(app);
      const [head, ...body] = good.trim().split('\n');
      const header = JSON.parse(head ?? '{}');
      const cases: [string, string, RegExp][] = [
        [
          'older schema',
          [JSON.stringify({ ...header, migrations: ['0001-platform'] }), ...body].join('\n'),
          /schema version .* differs/,
        ],
        ['newer format', [JSON.stringify({ ...header, format_version: 2 }), ...body].join('\n'), /schema version .* differs/],
        ['not a snapshot', '{"hello": "world"}\n', /Not a Cumulo snapshot/],
        ['not JSON', `${head}\nnot json\n`, /Line 2 .* not JSON/],
        ['cut off', body.length > 3 ? [head, ...body.slice(0, -2)].join('\n') : '', /incomplete/],
        ['unknown table', [head, '{"table":"nope","columns":["id"],"sequence":0}', ...body].join('\n'), /table nope/],
        [
          'short row',
          [head, '{"table":"tags","columns":["account_id","label","created"],"sequence":0}', '[1]', ...body].join('\n'),
          /1 values for 3 columns/,
        ],
        ['empty', '', /empty/],
      ];
      for (const [what, document, reason] of cases) {
        const res = await restoreInto(app, document);
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.errors[0].reason, reason, what);
      }
      assert.equal(await snapshotOf(app), good, 'nothing changed');
    });

    test('cumulo admin snapshot > file and cumulo admin restore < file, as processes on the database', async (t) => {
      const app = await operatorApp(t, dialect);
      await richState(app);
      const viaApi = await snapshotOf(app);
      const out = await cumulo(app, ['admin', 'snapshot']);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, viaApi, 'the command prints what the endpoint answers');

      await ok(app.admin('POST', '/admin/reset'));
      const restored = await cumulo(app, ['admin', 'restore'], { input: out.stdout });
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(JSON.parse(restored.stdout).rows, lines(viaApi).filter(Array.isArray).length);
      assert.equal(await snapshotOf(app), viaApi);

      const file = path.join(tempDir(t), 'snap.ndjson');
      fs.writeFileSync(file, out.stdout.replace('"format_version":1', '"format_version":7'));
      const refused = await cumulo(app, ['admin', 'restore', '--file', file]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /schema version/);
    });
  });
}

describe('snapshots move between databases', () => {
  test('sqlite -> postgres -> sqlite: every snapshot byte for byte the same, and the restored servers work', async (t) => {
    const source = await operatorApp(t, 'sqlite');
    await richState(source);
    const a = await snapshotOf(source);

    const pg = await operatorApp(t, 'postgres');
    assert.equal((await restoreInto(pg, a)).status, 200);
    const b = await snapshotOf(pg);
    assert.equal(b, a, 'postgres holds exactly what sqlite held');

    const back = await operatorApp(t, 'sqlite');
    assert.equal((await restoreInto(back, b)).status, 200);
    assert.equal(await snapshotOf(back), a);

    for (const app of [pg, back]) {
      await ok(app.admin('DELETE', '/admin/faults'));
      const nodes = await ok(app.request('GET', '/v4/node/instances', { token: ADMIN_TOKEN }));
      assert.equal(nodes.data.length, 2);
      const node = await createNode(app);
      assert.equal(node.id, tableOf(a, 'nodes').sequence + 1);
      await ok(app.admin('POST', '/admin/transitions/node_shutdown/advance'));
    }
  });
});
