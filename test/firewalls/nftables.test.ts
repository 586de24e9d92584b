import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { DIALECTS } from '../helpers/app.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';
import { createEmptyNode } from '../nodes/helpers.ts';
import { cumulo, type OperatorApp, ok, operatorApp } from '../operator/helpers.ts';
import { createFirewall, rule, setStatus } from './helpers.ts';

const URL = '/v4/networking/firewalls';

function run(command: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** `nft -c`: the ruleset parses and the kernel would take it, checked in a network namespace of its own. */
async function assertNftAccepts(ruleset: string): Promise<void> {
  const res = await run(['unshare', '-rn', systemTool('nft'), '-c', '-f', '-'], ruleset);
  assert.equal(res.code, 0, `nft -c refused the ruleset:\n${res.stderr}\n${ruleset}`);
}

/** Loads the ruleset for real in a fresh network namespace and answers what `nft list ruleset` shows there. */
async function nftLoad(ruleset: string): Promise<string> {
  const nft = systemTool('nft');
  const res = await run(['unshare', '-rn', 'sh', '-c', '"$0" -f - && "$0" list ruleset', nft], ruleset);
  assert.equal(res.code, 0, `nft -f refused the ruleset:\n${res.stderr}\n${ruleset}`);
  return res.stdout;
}

/** The node's rendered ruleset from the admin API, checked by nft before anything else. */
async function rulesetOf(app: OperatorApp, nodeId: number): Promise<{ firewall_id: number | null; ruleset: string }> {
  const body = await ok(app.admin('GET', `/admin/nodes/${nodeId}/firewall`));
  assert.equal(body.node_id, nodeId);
  await assertNftAccepts(body.ruleset);
  return body;
}

async function assign(app: OperatorApp, firewallId: number, nodeId: number): Promise<void> {
  const res = await app.request('POST', `${URL}/${firewallId}/devices`, { body: { id: nodeId, type: 'node' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The rule lines (tab-indented, inside a chain) of a ruleset, in order. */
function ruleLines(ruleset: string, chain: 'input' | 'output'): string[] {
  const lines = ruleset.split('\n');
  const start = lines.findIndex((l) => l.trim() === `chain ${chain} {`);
  assert.notEqual(start, -1, `no chain ${chain}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '}');
  return lines.slice(start + 1, end).map((l) => l.trim());
}

const STATEFUL = [
  'ct state established,related accept',
  'ct state invalid drop',
  'icmpv6 type { nd-router-solicit, nd-router-advert, nd-neighbor-solicit, nd-neighbor-advert } accept',
];

for (const dialect of DIALECTS) {
  describe(`firewall as nftables [${dialect}]`, needs('nft'), () => {
    test('every protocol, port form and address form renders to a ruleset nft takes, and loads as rendered', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await createEmptyNode(app, { label: 'web-1' });
      const fw = await createFirewall(app, {
        devices: { nodes: [node.id] },
        rules: {
          inbound_policy: 'DROP',
          outbound_policy: 'ACCEPT',
          inbound: [
            rule({ label: 'ssh', ports: '22', addresses: { ipv4: ['192.0.2.7'], ipv6: ['2001:DB8:0:0::/64'] } }),
            rule({
              protocol: 'UDP',
              label: 'dns "and" more\\',
              description: 'Quotes " and \\ and a\nnewline stay out',
              ports: '5000-5010, 53,5005, 6000-6001',
              addresses: { ipv4: ['198.51.100.0/24', '198.51.100.9', '203.0.113.0/25'] },
            }),
            rule({ protocol: 'ICMP', ports: undefined, label: 'ping', addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] } }),
            rule({ action: 'DROP', label: 'no-telnet', ports: '23', addresses: { ipv6: ['2001:db8::1', '::/0'] } }),
            rule({ protocol: 'ICMP', ports: undefined, label: 'ping6-lab', addresses: { ipv6: ['2001:db8:1::/48'] } }),
          ],
          outbound: [
            rule({
              protocol: 'TCP',
              action: 'DROP',
              label: 'no-smtp',
              ports: '25, 465, 587',
              addresses: { ipv4: ['0.0.0.0/0'] },
            }),
          ],
        },
      });
      const { firewall_id, ruleset } = await rulesetOf(app, node.id);
      assert.equal(firewall_id, fw.id);
      assert.match(ruleset, new RegExp(`^table inet cumulo_node_${node.id} \\{$`, 'm'));
      assert.ok(!ruleset.includes('newline stay out'), 'descriptions are free text and stay out');
      const c = (n: number, direction = 'inbound') => `comment "firewall ${fw.id} ${direction}[${n}]`;
      assert.deepEqual(ruleLines(ruleset, 'input'), [
        'type filter hook input priority filter; policy drop;',
        STATEFUL[0],
        STATEFUL[1],
        'iif "lo" accept',
        STATEFUL[2],
        `ip saddr 192.0.2.7 tcp dport 22 accept ${c(0)} ssh"`,
        `ip6 saddr 2001:db8::/64 tcp dport 22 accept ${c(0)} ssh"`,
        `ip saddr { 198.51.100.0/24, 203.0.113.0/25 } udp dport { 53, 5000-5010, 6000-6001 } accept ${c(1)} dns _and_ more_"`,
        `meta nfproto ipv4 ip protocol icmp accept ${c(2)} ping"`,
        `meta nfproto ipv6 meta l4proto ipv6-icmp accept ${c(2)} ping"`,
        `meta nfproto ipv6 tcp dport 23 drop ${c(3)} no-telnet"`,
        `ip6 saddr 2001:db8:1::/48 meta l4proto ipv6-icmp accept ${c(4)} ping6-lab"`,
      ]);
      assert.deepEqual(ruleLines(ruleset, 'output'), [
        'type filter hook output priority filter; policy accept;',
        STATEFUL[0],
        STATEFUL[1],
        'oif "lo" accept',
        STATEFUL[2],
        `meta nfproto ipv4 tcp dport { 25, 465, 587 } drop ${c(0, 'outbound')} no-smtp"`,
      ]);

      // Loaded for real (twice: a load replaces the table), the kernel holds the rules as rendered.
      const listed = await nftLoad(`${ruleset}${ruleset}`);
      assert.equal(listed.match(/^table /gm)?.length, 1);
      assert.deepEqual(ruleLines(listed, 'input').slice(0, 7), ruleLines(ruleset, 'input').slice(0, 7));
      for (const expected of [
        `ip saddr { 198.51.100.0/24, 203.0.113.0/25 } udp dport { 53, 5000-5010, 6000-6001 } accept ${c(1)} dns _and_ more_"`,
        `ip protocol icmp accept ${c(2)} ping"`,
        `ip6 saddr 2001:db8:1::/48 meta l4proto ipv6-icmp accept ${c(4)} ping6-lab"`,
        `tcp dport { 25, 465, 587 } drop ${c(0, 'outbound')} no-smtp"`,
      ]) {
        assert.ok(
          listed.split('\n').some((l) => l.trim().endsWith(expected)),
          `listed ruleset lacks ${expected}:\n${listed}`,
        );
      }

      assert.equal((await rulesetOf(app, node.id)).ruleset, ruleset, 'the same state renders the same text');
      const cli = await cumulo(app, ['admin', 'nodes', 'firewall', String(node.id)]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(cli.stdout, ruleset, 'the command prints the ruleset itself');
    });

    test('policies as given, empty rule lists; no firewall or a disabled one accepts everything; unknown node 404', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await createEmptyNode(app);
      const none = await rulesetOf(app, node.id);
      assert.equal(none.firewall_id, null);
      assert.match(none.ruleset, /^# .*no enabled firewall, every packet is accepted/m);
      assert.deepEqual(ruleLines(none.ruleset, 'input'), ['type filter hook input priority filter; policy accept;']);
      assert.deepEqual(ruleLines(none.ruleset, 'output'), ['type filter hook output priority filter; policy accept;']);

      const fw = await createFirewall(app, {
        devices: { nodes: [node.id] },
        rules: { inbound: [], outbound: [], inbound_policy: 'ACCEPT', outbound_policy: 'DROP' },
      });
      const empty = await rulesetOf(app, node.id);
      assert.equal(empty.firewall_id, fw.id);
      assert.deepEqual(ruleLines(empty.ruleset, 'input'), [
        'type filter hook input priority filter; policy accept;',
        STATEFUL[0],
        STATEFUL[1],
        'iif "lo" accept',
        STATEFUL[2],
      ]);
      assert.deepEqual(ruleLines(empty.ruleset, 'output'), [
        'type filter hook output priority filter; policy drop;',
        STATEFUL[0],
        STATEFUL[1],
        'oif "lo" accept',
        STATEFUL[2],
      ]);
      assert.match(await nftLoad(empty.ruleset), /policy drop;/);

      await setStatus(app, fw.id, 'disabled');
      assert.deepEqual(await rulesetOf(app, node.id), { node_id: node.id, ...none }, 'a disabled firewall filters nothing');

      const missing = await app.admin('GET', '/admin/nodes/987654/firewall');
      assert.equal(missing.status, 404);
      assert.match(missing.body.errors[0].reason, /No node with id 987654/);
      const cli = await cumulo(app, ['admin', 'nodes', 'firewall', '987654']);
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /No node with id 987654/);
    });

    test('a rules PUT, a device delete and a firewall delete change the rendered ruleset', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await createEmptyNode(app);
      const fw = await createFirewall(app, { devices: { nodes: [node.id] } });
      const spare = await createFirewall(app, {
        rules: {
          inbound: [rule({ label: 'spare-in', ports: '8080', addresses: { ipv4: ['10.0.0.0/8'] } })],
          inbound_policy: 'ACCEPT',
          outbound_policy: 'ACCEPT',
        },
      });
      await setStatus(app, spare.id, 'disabled');
      await assign(app, spare.id, node.id);
      const before = await rulesetOf(app, node.id);
      assert.equal(before.firewall_id, fw.id, 'the enabled firewall, not the disabled one');
      assert.match(before.ruleset, /tcp dport \{ 22, 80, 443 \} accept comment "firewall \d+ inbound\[0\] allow-web"/);

      // Rules PUT: the whole ruleset is replaced; a policy left out stays.
      const put = await app.request('PUT', `${URL}/${fw.id}/rules`, {
        body: { outbound: [rule({ protocol: 'UDP', label: 'ntp-out', ports: '123', addresses: { ipv4: ['192.0.2.123'] } })] },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const replaced = await rulesetOf(app, node.id);
      assert.deepEqual(ruleLines(replaced.ruleset, 'input').slice(5), [], 'no inbound rule is left');
      assert.match(ruleLines(replaced.ruleset, 'input')[0] ?? '', /policy drop;/);
      assert.deepEqual(ruleLines(replaced.ruleset, 'output').slice(5), [
        `ip daddr 192.0.2.123 udp dport 123 accept comment "firewall ${fw.id} outbound[0] ntp-out"`,
      ]);

      // Device delete: the node holds only the disabled firewall, so nothing filters.
      const devices = (await app.request('GET', `${URL}/${fw.id}/devices`)).body.data;
      assert.equal((await app.request('DELETE', `${URL}/${fw.id}/devices/${devices[0].id}`)).status, 200);
      const removed = await rulesetOf(app, node.id);
      assert.equal(removed.firewall_id, null);
      assert.match(removed.ruleset, /no enabled firewall/);
      await setStatus(app, spare.id, 'enabled');
      const other = await rulesetOf(app, node.id);
      assert.equal(other.firewall_id, spare.id, 'another firewall enabled on the node takes over');
      assert.match(other.ruleset, /ip saddr 10\.0\.0\.0\/8 tcp dport 8080 accept comment "firewall \d+ inbound\[0\] spare-in"/);

      // Firewall delete: its rules leave the node; a disabled firewall left there filters nothing.
      await setStatus(app, fw.id, 'disabled');
      await assign(app, fw.id, node.id);
      assert.equal((await app.request('DELETE', `${URL}/${spare.id}`)).status, 200);
      assert.deepEqual(await rulesetOf(app, node.id), { node_id: node.id, ...removed });
      await setStatus(app, fw.id, 'enabled');
      assert.equal((await rulesetOf(app, node.id)).firewall_id, fw.id);
      assert.equal((await app.request('DELETE', `${URL}/${fw.id}`)).status, 200);
      assert.deepEqual(await rulesetOf(app, node.id), { node_id: node.id, ...removed });
    });
  });
}
