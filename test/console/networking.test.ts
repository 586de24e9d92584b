import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Zone } from '../../src/dns/zone.ts';
import { listenTestNameserver, memorySource } from '../dns/helpers.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';
import { confirmDialog, consoleServer, launch, PAGE_DIALECTS, shotBothWidths, signIn, toast, watchedPage } from './browser.ts';

// The import transfers from a nameserver this test runs on loopback, which tenants may not reach by
// default; the admin API sets the read-only user's password.
process.env.CUMULO_EGRESS_ALLOW = '127.0.0.0/8';
// A zone is rendered 0.1 s after a change instead of 1 s: the zone file shows it sooner.
process.env.CUMULO_DNS_RENDER_DELAY_MS = '100';
const ADMIN_TOKEN = 'networking-console-admin-token';
process.env.CUMULO_ADMIN_TOKEN = ADMIN_TOKEN;

const VIEWER_PASSWORD = 'viewer console password';

/** The zone the import transfers: every kind of record an import keeps. */
function sourceZone(): Zone {
  const origin = 'imported.example';
  const soa = { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial: 7, refresh: 14400, retry: 3600, expire: 604800 };
  return {
    origin,
    axfrIps: ['127.0.0.1'],
    records: [
      { name: origin, type: 'SOA', ttl: 86400, data: { ...soa, minimum: 300 } },
      { name: origin, type: 'NS', ttl: 86400, data: `ns1.${origin}` },
      { name: `www.${origin}`, type: 'A', ttl: 300, data: '192.0.2.80' },
      { name: origin, type: 'MX', ttl: 300, data: { preference: 10, exchange: `mail.${origin}` } },
      { name: origin, type: 'TXT', ttl: 300, data: ['imported by transfer'] },
    ],
  };
}

/** The access token the console holds for its signed-in user. */
async function tokenOf(page: Page): Promise<string> {
  const text = (await page.evaluate('localStorage.getItem("cumulo.tokens")')) as string | null;
  return (JSON.parse(text ?? '{}') as { access_token: string }).access_token;
}

/** Calls the API with `token` (the console's own, from tokenOf): for what a test sets up or reads back. */
async function call<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}/v4${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await res.json()) as T;
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Closes every toast: a screenshot shows the page under them. */
async function clearToasts(page: Page): Promise<void> {
  const dismiss = page.locator('.toasts').getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

/** Signs in as `username` as a person would (signIn in browser.ts is the admin's). */
async function signInAs(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Nodes' }).waitFor();
}

/** Goes to a section through the menu, as a user does. */
async function open(page: Page, section: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section }).click();
  await page.getByRole('heading', { name: section, level: 1 }).waitFor();
}

/** Waits (up to 15 s: the zone is rendered a moment after a change) until the text of `locator` satisfies `test`. */
async function until(locator: Locator, test: (text: string) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let text = '';
  while (Date.now() < deadline) {
    text = (await locator.textContent()) ?? '';
    if (test(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.fail(`${what}; it reads:\n${text}`);
}

/** The definition (dd) after the term `term` of the page's facts. */
function fact(page: Page, term: string) {
  return page.locator(`.facts dt:text-is("${term}") + dd`);
}

for (const dialect of PAGE_DIALECTS) {
  describe(`console: firewalls and domains [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let browser: Browser;
    let nameserverPort = 0;
    /** The admin's token, from the first test's sign-in. */
    let adminToken = '';
    const shots: string[] = [];
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    before(async () => {
      server = await consoleServer(suite, dialect);
      browser = await launch(suite);
      const nameserver = await listenTestNameserver(memorySource([sourceZone()]));
      cleanups.push(() => nameserver.server.close());
      nameserverPort = nameserver.port;
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
      for (const file of shots) assert.ok(fs.statSync(file).size > 10_000, `${file} is a real screenshot`);
    });

    test('firewalls: create with policies, tags and a node; rules both ways added, edited, removed; policies, disable, devices, tags, delete', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-networking`);
      await signIn(page, server.baseUrl);
      adminToken = await tokenOf(page);
      const apiAs = <T>(method: string, path: string, body?: unknown) => call<T>(server.baseUrl, adminToken, method, path, body);
      for (const label of ['fw-node-1', 'fw-node-2']) {
        await apiAs('POST', '/node/instances', { label, region: 'us-east', type: 'g6-nanode-1' });
      }
      await open(page, 'Firewalls');
      await page.getByRole('link', { name: 'Create a firewall' }).click();
      const create = page.getByRole('form', { name: 'Create a firewall' });
      await create.getByLabel('Label').fill('web-fw');
      await create.getByLabel('Tags', { exact: true }).fill('prod');
      await create.getByLabel('Tags', { exact: true }).press('Enter');
      await create.getByLabel('Inbound policy').selectOption('DROP');
      await create.getByLabel('Outbound policy').selectOption('DROP');
      await create.getByLabel('fw-node-1').check();
      await create.getByRole('button', { name: 'Create firewall' }).click();
      await toast(page, 'Firewall web-fw created');
      await page.getByRole('heading', { name: 'web-fw' }).waitFor();
      await page.getByRole('table', { name: 'Devices' }).getByRole('link', { name: 'fw-node-1' }).waitFor();
      assert.equal(await fact(page, 'Tags').textContent(), 'prod');
      assert.equal(await fact(page, 'Outbound policy').textContent(), 'DROP');
      const id = Number(page.url().split('/').pop());

      // Inbound: a bad port is refused at its field, then the rule is added.
      const inbound = page.getByRole('form', { name: 'Add an inbound rule' });
      await inbound.getByLabel('Label').fill('ssh-in');
      await inbound.getByLabel('Ports').fill('99999');
      expectFailure('PUT', '/rules', 400);
      await inbound.getByRole('button', { name: 'Add rule' }).click();
      const portsError = inbound.locator('.field-error[data-field="inbound[0].ports"]');
      await portsError.waitFor();
      assert.match((await portsError.textContent()) ?? '', /port/i);
      assert.equal(await inbound.getByLabel('Ports').getAttribute('aria-invalid'), 'true');
      await inbound.getByLabel('Ports').fill('22');
      await inbound.getByRole('button', { name: 'Add rule' }).click();
      await toast(page, 'Inbound rule ssh-in added to web-fw');
      const inRules = page.getByRole('table', { name: 'Inbound rules' });
      await inRules
        .getByRole('row', { name: /ssh-in/ })
        .getByText('0.0.0.0/0, ::/0')
        .waitFor();

      // An ICMP rule has no ports; it is then removed after a question.
      await inbound.getByLabel('Label').fill('ping-in');
      await inbound.getByLabel('Protocol').selectOption('ICMP');
      assert.equal(await inbound.getByLabel('Ports').count(), 0, 'ICMP takes no ports');
      await inbound.getByRole('button', { name: 'Add rule' }).click();
      await toast(page, 'Inbound rule ping-in added to web-fw');
      await inRules.getByRole('button', { name: 'Remove inbound rule ping-in' }).click();
      await confirmDialog(page, 'Remove inbound rule ping-in from web-fw?', 'Remove');
      await toast(page, 'Inbound rule ping-in removed from web-fw');
      await inRules.getByText('ping-in').waitFor({ state: 'detached' });

      // Outbound: protocol, ports, v4 and v6 destinations, action and description.
      const outbound = page.getByRole('form', { name: 'Add an outbound rule' });
      await outbound.getByLabel('Label').fill('dns-out');
      await outbound.getByLabel('Protocol').selectOption('UDP');
      await outbound.getByLabel('Ports').fill('53');
      await outbound.getByLabel('Destinations: IPv4').fill('192.0.2.53\n198.51.100.0/24');
      await outbound.getByLabel('Destinations: IPv6').fill('2001:db8::53');
      await outbound.getByLabel('Description').fill('name lookups');
      await outbound.getByRole('button', { name: 'Add rule' }).click();
      await toast(page, 'Outbound rule dns-out added to web-fw');
      await page.getByRole('table', { name: 'Outbound rules' }).getByText('192.0.2.53, 198.51.100.0/24, 2001:db8::53').waitFor();

      // Edit the inbound rule: its ports and action.
      await inRules.getByRole('button', { name: 'Edit inbound rule ssh-in' }).click();
      const edit = page.getByRole('form', { name: 'Edit inbound rule ssh-in' });
      assert.equal(await edit.getByLabel('Ports').inputValue(), '22');
      await edit.getByLabel('Ports').fill('22, 2222');
      await edit.getByLabel('Action').selectOption('DROP');
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await toast(page, 'Inbound rule ssh-in saved in web-fw');
      await inRules
        .getByRole('row', { name: /ssh-in/ })
        .getByText('22, 2222')
        .waitFor();

      // Policies.
      const policies = page.getByRole('form', { name: 'Policies' });
      await policies.getByLabel('Inbound policy').selectOption('ACCEPT');
      await policies.getByRole('button', { name: 'Save policies' }).click();
      await toast(page, 'Policies of web-fw saved: inbound ACCEPT, outbound DROP');
      await fact(page, 'Inbound policy').getByText('ACCEPT').waitFor();

      const stored = await apiAs<{ rules: Record<string, unknown> }>('GET', `/networking/firewalls/${id}`);
      const { version, fingerprint, ...rules } = stored.rules;
      assert.ok(Number(version) > 1, 'each rules change is a version');
      assert.match(String(fingerprint), /^[0-9a-f]{8}$/);
      assert.deepEqual(rules, {
        inbound: [
          {
            protocol: 'TCP',
            ports: '22, 2222',
            addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
            action: 'DROP',
            label: 'ssh-in',
          },
        ],
        outbound: [
          {
            protocol: 'UDP',
            ports: '53',
            addresses: { ipv4: ['192.0.2.53', '198.51.100.0/24'], ipv6: ['2001:db8::53'] },
            action: 'ACCEPT',
            label: 'dns-out',
            description: 'name lookups',
          },
        ],
        inbound_policy: 'ACCEPT',
        outbound_policy: 'DROP',
      });

      // Disable asks first; enable does not.
      await page.getByRole('button', { name: 'Disable', exact: true }).click();
      await confirmDialog(page, 'Disable firewall web-fw?', 'Disable');
      await toast(page, 'Firewall web-fw disabled');
      await page.locator('.page-head .status', { hasText: 'disabled' }).waitFor();
      await page.getByRole('button', { name: 'Enable', exact: true }).click();
      await toast(page, 'Firewall web-fw enabled');
      await page.locator('.page-head .status', { hasText: 'enabled' }).waitFor();

      // Devices: another node joins, the first leaves after a question.
      const addNode = page.getByRole('form', { name: 'Add a node' });
      assert.deepEqual(
        await addNode.getByLabel('Node').locator('option').allTextContents(),
        ['Choose a node', 'fw-node-2'],
        'only the nodes not yet behind it are offered',
      );
      await addNode.getByLabel('Node').selectOption({ label: 'fw-node-2' });
      await addNode.getByRole('button', { name: 'Add node' }).click();
      await toast(page, 'fw-node-2 added to web-fw');
      const devices = page.getByRole('table', { name: 'Devices' });
      await devices.getByRole('link', { name: 'fw-node-2' }).waitFor();
      await devices.getByRole('button', { name: 'Remove fw-node-1 from the firewall' }).click();
      await confirmDialog(page, 'Remove fw-node-1 from web-fw?', 'Remove');
      await toast(page, 'fw-node-1 removed from web-fw');
      await devices.getByRole('link', { name: 'fw-node-1' }).waitFor({ state: 'detached' });

      // Tags: one off, one on.
      const settings = page.getByRole('form', { name: 'Label and tags' });
      await settings.getByRole('button', { name: 'Remove tag prod' }).click();
      await settings.getByLabel('Tags', { exact: true }).fill('edge');
      await settings.getByLabel('Tags', { exact: true }).press('Enter');
      await settings.getByRole('button', { name: 'Save label and tags' }).click();
      await toast(page, 'Firewall web-fw saved');
      await fact(page, 'Tags').getByText('edge', { exact: true }).waitFor();
      assert.deepEqual((await apiAs<{ tags: string[] }>('GET', `/networking/firewalls/${id}`)).tags, ['edge']);
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-networking`, 'firewall-detail')));

      // The list: searched by label, ordered by label both ways.
      await apiAs('POST', '/networking/firewalls', {
        label: 'alpha-fw',
        rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' },
      });
      await page.getByRole('link', { name: 'Firewalls', exact: true }).first().click();
      const list = page.getByRole('table', { name: 'Firewalls' });
      await list.getByRole('link', { name: 'alpha-fw' }).waitFor();
      const labels = () => list.locator('tbody tr td:first-child').allTextContents();
      assert.deepEqual(await labels(), ['alpha-fw', 'web-fw']);
      await list.getByRole('button', { name: 'Label' }).click();
      await list.locator('tbody tr').first().getByRole('link', { name: 'web-fw' }).waitFor();
      assert.deepEqual(await labels(), ['web-fw', 'alpha-fw']);
      await page.getByLabel('Label contains').fill('alpha');
      await list.getByRole('link', { name: 'web-fw' }).waitFor({ state: 'detached' });
      assert.deepEqual(await labels(), ['alpha-fw']);
      await page.getByLabel('Label contains').fill('');
      await list.getByRole('link', { name: 'web-fw' }).waitFor();
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-networking`, 'firewall-list')));

      // Delete asks first, then the list no longer has it.
      await list.getByRole('link', { name: 'alpha-fw' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await confirmDialog(page, 'Delete firewall alpha-fw?', 'Delete');
      await toast(page, 'Firewall alpha-fw deleted');
      await page.getByRole('heading', { name: 'Firewalls', level: 1 }).waitFor();
      await list.getByRole('link', { name: 'web-fw' }).waitFor();
      assert.equal(await list.getByRole('link', { name: 'alpha-fw' }).count(), 0);
    });

    test('domains: a master with a record of every type, edited and deleted; settings, disable, clone, a slave, an AXFR import, search, sort, delete', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-networking-dns`);
      await signIn(page, server.baseUrl);
      const token = await tokenOf(page);
      const apiAs = <T>(method: string, path: string, body?: unknown) => call<T>(server.baseUrl, token, method, path, body);
      await open(page, 'Domains');
      await page.getByRole('link', { name: 'Add a domain' }).click();
      const create = page.getByRole('form', { name: 'Add a domain' });
      await create.getByLabel('Domain', { exact: true }).fill('net-test.example');
      expectFailure('POST', '/v4/domains', 400);
      await create.getByRole('button', { name: 'Add domain' }).click();
      await create.locator('.field-error[data-field="soa_email"]').waitFor();
      await create.getByLabel('SOA email').fill('hostmaster@net-test.example');
      await create.getByLabel('Tags', { exact: true }).fill('dns');
      await create.getByLabel('Tags', { exact: true }).press('Enter');
      await create.getByRole('button', { name: 'Add domain' }).click();
      await toast(page, 'Domain net-test.example added');
      await page.getByRole('heading', { name: 'net-test.example' }).waitFor();
      const id = Number(page.url().split('/').pop());

      // A record of every type, each with its own fields.
      const form = page.getByRole('form', { name: 'Add a record' });
      const add = async (type: string, fields: Record<string, string>, shown: string) => {
        await form.getByLabel('Type').selectOption(type);
        for (const [label, value] of Object.entries(fields)) {
          const field = form.getByLabel(label, { exact: true });
          if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value);
          else await field.fill(value);
        }
        await form.getByRole('button', { name: 'Add record' }).click();
        await toast(page, `${shown} added to net-test.example`);
      };
      await add('A', { Name: 'www', 'IPv4 address': '192.0.2.10', TTL: '3600' }, 'A record www');
      await add('AAAA', { Name: 'www', 'IPv6 address': '2001:db8::10' }, 'AAAA record www');
      await add('NS', { Name: 'sub', Nameserver: 'ns1.example.net' }, 'NS record sub');
      await add('MX', { Name: '', 'Mail server': 'mail.net-test.example', Priority: '10' }, 'MX record @');
      await add('CNAME', { Name: 'ftp', 'Alias of': 'www.net-test.example' }, 'CNAME record ftp');
      await add('TXT', { Name: '', Text: 'v=spf1 -all' }, 'TXT record @');
      await add(
        'SRV',
        { Service: 'sip', Protocol: 'udp', Priority: '10', Weight: '5', Port: '5060', Target: 'sip.net-test.example' },
        'SRV record _sip._udp',
      );
      await add('PTR', { Name: 'ptr', 'Points to': 'host.example.org' }, 'PTR record ptr');
      await add('CAA', { Name: '', Tag: 'issue', Value: 'letsencrypt.org' }, 'CAA record @');
      const records = page.getByRole('table', { name: 'Records' });
      await records.getByRole('row', { name: /SRV/ }).getByText('priority 10, weight 5, port 5060').waitFor();
      await records.getByRole('row', { name: /CAA/ }).getByText('tag issue').waitFor();
      const zone = page.locator('pre.zone');
      for (const line of [
        /^www\.net-test\.example\. 3600 IN A 192\.0\.2\.10$/m,
        /^www\.net-test\.example\. \d+ IN AAAA 2001:db8::10$/m,
        /^sub\.net-test\.example\. \d+ IN NS ns1\.example\.net\.$/m,
        /^net-test\.example\. \d+ IN MX 10 mail\.net-test\.example\.$/m,
        /^ftp\.net-test\.example\. \d+ IN CNAME www\.net-test\.example\.$/m,
        /^net-test\.example\. \d+ IN TXT "v=spf1 -all"$/m,
        /^_sip\._udp\.net-test\.example\. \d+ IN SRV 10 5 5060 sip\.net-test\.example\.$/m,
        /^ptr\.net-test\.example\. \d+ IN PTR host\.example\.org\.$/m,
        /^net-test\.example\. \d+ IN CAA 0 issue "letsencrypt\.org"$/m,
      ]) {
        await until(zone, (text) => line.test(text), `the zone file shows ${line}`);
      }

      // Edit a record: the MX's priority.
      await records.getByRole('button', { name: 'Edit MX record @' }).click();
      const edit = page.getByRole('form', { name: 'Edit MX record @' });
      assert.equal(await edit.getByLabel('Mail server').inputValue(), 'mail.net-test.example');
      await edit.getByLabel('Priority').fill('20');
      await edit.getByRole('button', { name: 'Save record' }).click();
      await toast(page, 'MX record @ saved in net-test.example');
      await records.getByRole('row', { name: /MX/ }).getByText('priority 20').waitFor();
      await zone.getByText(/IN MX 20 mail/).waitFor({ timeout: 15_000 });

      // Delete a record after a question: it leaves the zone.
      await records.getByRole('button', { name: 'Delete CNAME record ftp' }).click();
      await confirmDialog(page, 'Delete CNAME record ftp of net-test.example?', 'Delete');
      await toast(page, 'CNAME record ftp deleted from net-test.example');
      await records.getByText('ftp', { exact: true }).waitFor({ state: 'detached' });
      await until(zone, (text) => !/^ftp\./m.test(text), 'the deleted record leaves the zone file');

      // Records found by name: only those whose name holds the text; none, and it says so.
      await page.getByLabel('Name contains').fill('ww');
      await records.getByRole('row', { name: /CAA/ }).waitFor({ state: 'detached' });
      const recordNames = await records.locator('tbody td[data-title="Name"]').allTextContents();
      assert.deepEqual([...recordNames].sort(), ['www', 'www'], 'the A and AAAA records of www');
      await page.getByLabel('Name contains').fill('nothing-like-it');
      await page.getByText('No record name holds that text.').waitFor();
      await page.getByLabel('Name contains').fill('');
      await records.getByRole('row', { name: /CAA/ }).waitFor();

      // The list: two more domains (a clone and a slave) to search and sort.
      const settings = page.getByRole('form', { name: 'Domain settings' });
      await settings.getByLabel('Default TTL').selectOption('3600');
      await settings.getByLabel('Refresh').selectOption('7200');
      await settings.getByLabel('Retry').selectOption('300');
      await settings.getByLabel('Expire').selectOption('604800');
      await settings.getByLabel('Description').fill('the networking test zone');
      await settings.getByLabel('AXFR IPs').fill('192.0.2.99');
      await settings.getByLabel('SOA email').fill('dns@net-test.example');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await toast(page, 'Domain net-test.example saved');
      await fact(page, 'Default TTL').getByText('1 hour').waitFor();
      const saved = await apiAs<Record<string, unknown>>('GET', `/domains/${id}`);
      assert.deepEqual(
        [
          saved.soa_email,
          saved.ttl_sec,
          saved.refresh_sec,
          saved.retry_sec,
          saved.expire_sec,
          saved.axfr_ips,
          saved.description,
          saved.tags,
        ],
        ['dns@net-test.example', 3600, 7200, 300, 604800, ['192.0.2.99'], 'the networking test zone', ['dns']],
      );
      await zone.getByText(/ IN SOA .*dns\.net-test\.example\./).waitFor({ timeout: 15_000 });

      // Disabling asks first.
      await settings.getByLabel('Status').selectOption('disabled');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await confirmDialog(page, 'Disable domain net-test.example?', 'Disable and save');
      await toast(page, 'Domain net-test.example saved');
      await page.locator('.page-head .status', { hasText: 'disabled' }).waitFor();
      await settings.getByLabel('Status').selectOption('active');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await toast(page, 'Domain net-test.example saved');
      await page.locator('.page-head .status', { hasText: 'active' }).waitFor();
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-networking`, 'domain-detail')));

      // Clone: the copy has the records.
      const clone = page.getByRole('form', { name: 'Clone the domain' });
      await clone.getByLabel('New domain').fill('net-copy.example');
      await clone.getByRole('button', { name: 'Clone domain' }).click();
      await toast(page, 'net-test.example cloned as net-copy.example');
      await page.getByRole('heading', { name: 'net-copy.example' }).waitFor();
      await page.getByRole('table', { name: 'Records' }).getByText('192.0.2.10').waitFor();

      // A slave: its masters instead of an SOA email, and no records of its own.
      await page.getByRole('link', { name: 'Domains', exact: true }).first().click();
      await page.getByRole('link', { name: 'Add a domain' }).click();
      await create.getByLabel('Slave: a copy of a zone another nameserver holds').check();
      assert.equal(await create.getByLabel('SOA email').count(), 0, 'a slave takes no SOA email');
      await create.getByLabel('Domain', { exact: true }).fill('net-slave.example');
      await create.getByLabel('Master IPs').fill('192.0.2.1\n192.0.2.2');
      await create.getByRole('button', { name: 'Add domain' }).click();
      await toast(page, 'Domain net-slave.example added');
      await page.getByRole('heading', { name: 'net-slave.example' }).waitFor();
      assert.equal(await fact(page, 'Master IPs').textContent(), '192.0.2.1, 192.0.2.2');
      await page.getByText("A slave domain's records come from its masters").waitFor();

      // Import by AXFR: a zone the nameserver does not hold is refused at the field, then one it does.
      await page.getByRole('link', { name: 'Domains', exact: true }).first().click();
      await page.getByRole('link', { name: 'Import a zone' }).click();
      const imp = page.getByRole('form', { name: 'Import a zone' });
      await imp.getByLabel('Domain').fill('elsewhere.example');
      await imp.getByLabel('Remote nameserver').fill(`127.0.0.1:${nameserverPort}`);
      expectFailure('POST', '/v4/domains/import', 400);
      await imp.getByRole('button', { name: 'Import zone' }).click();
      const refusal = imp.locator('.field-error[data-field="remote_nameserver"]');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /No zone transfer of elsewhere\.example/);
      await toast(page, /No zone transfer/, 'failed');
      await imp.getByLabel('Domain').fill('imported.example');
      await imp.getByRole('button', { name: 'Import zone' }).click();
      await toast(page, `Zone imported.example imported from 127.0.0.1:${nameserverPort}`);
      await page.getByRole('heading', { name: 'imported.example' }).waitFor();
      const imported = page.getByRole('table', { name: 'Records' });
      await imported.getByText('192.0.2.80').waitFor();
      await imported.getByText('imported by transfer').waitFor();
      await imported.getByText('mail.imported.example').waitFor();

      // The list: search by name, order by name both ways.
      await page.getByRole('link', { name: 'Domains', exact: true }).first().click();
      const list = page.getByRole('table', { name: 'Domains' });
      await list.getByRole('link', { name: 'net-test.example' }).waitFor();
      const names = () => list.locator('tbody tr td:first-child').allTextContents();
      assert.deepEqual(await names(), ['imported.example', 'net-copy.example', 'net-slave.example', 'net-test.example']);
      await list.getByRole('button', { name: 'Domain' }).click();
      await list.locator('tbody tr').first().getByRole('link', { name: 'net-test.example' }).waitFor();
      await page.getByLabel('Domain contains').fill('net-');
      await list.getByRole('link', { name: 'imported.example' }).waitFor({ state: 'detached' });
      assert.deepEqual(await names(), ['net-test.example', 'net-slave.example', 'net-copy.example']);
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-networking`, 'domain-list')));

      // Delete after a question. A read of the domain still in flight when it is deleted (here one its
      // own change made, held until the delete has been answered) is cancelled: it finds no 404.
      await list.getByRole('link', { name: 'net-copy.example' }).click();
      await page.getByRole('heading', { name: 'net-copy.example' }).waitFor();
      const copyPath = `/v4/domains/${new URL(page.url()).hash.split('/').pop()}`;
      const deleteAnswered = page.waitForResponse((res) => res.request().method() === 'DELETE' && res.url().endsWith(copyPath));
      const readHeld = new Promise<void>((held) => {
        void page.route(`**${copyPath}`, async (route) => {
          if (route.request().method() !== 'GET') return route.continue();
          held();
          await deleteAnswered;
          await route.continue().catch(() => undefined);
        });
      });
      await apiAs('PUT', copyPath.slice('/v4'.length), { description: 'about to go' });
      await readHeld;
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await confirmDialog(page, 'Delete domain net-copy.example?', 'Delete');
      await toast(page, 'Domain net-copy.example deleted');
      await list.getByRole('link', { name: 'net-test.example' }).waitFor();
      assert.equal(await list.getByRole('link', { name: 'net-copy.example' }).count(), 0);
    });

    test('a read-only user sees the firewall and the domain granted, and no control that would change them', async (t) => {
      if (!adminToken) {
        const admin = await watchedPage(t, browser, `${dialect}-networking-admin`);
        await signIn(admin.page, server.baseUrl);
        adminToken = await tokenOf(admin.page);
      }
      const apiAs = <T>(method: string, path: string, body?: unknown) => call<T>(server.baseUrl, adminToken, method, path, body);
      const fw = await apiAs<{ id: number }>('POST', '/networking/firewalls', {
        label: 'viewed-fw',
        rules: {
          inbound_policy: 'DROP',
          outbound_policy: 'ACCEPT',
          inbound: [{ protocol: 'TCP', ports: '443', addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT', label: 'https' }],
        },
      });
      const domain = await apiAs<{ id: number }>('POST', '/domains', {
        domain: 'viewed.example',
        type: 'master',
        soa_email: 'hostmaster@viewed.example',
      });
      await apiAs('POST', `/domains/${domain.id}/records`, { type: 'A', name: 'www', target: '192.0.2.7' });
      await apiAs('POST', '/account/users', { username: 'viewer', email: 'viewer@example.com', restricted: true });
      await apiAs('PUT', '/account/users/viewer/grants', {
        global: { add_firewalls: false, add_domains: false },
        firewall: [{ id: fw.id, permissions: 'read_only' }],
        domain: [{ id: domain.id, permissions: 'read_only' }],
      });
      const set = await fetch(`${server.baseUrl}/admin/users/viewer/password`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ password: VIEWER_PASSWORD }),
      });
      assert.equal(set.status, 200, await set.text());

      const { page } = await watchedPage(t, browser, `${dialect}-networking-viewer`);
      await signInAs(page, server.baseUrl, 'viewer', VIEWER_PASSWORD);
      await open(page, 'Firewalls');
      await page.getByRole('table', { name: 'Firewalls' }).getByRole('link', { name: 'viewed-fw' }).click();
      await page.getByRole('heading', { name: 'viewed-fw' }).waitFor();
      await page.getByRole('table', { name: 'Inbound rules' }).getByText('https').waitFor();
      await page
        .getByRole('table', { name: 'Devices' })
        .or(page.getByText('No nodes: this firewall protects nothing yet.'))
        .waitFor();
      assert.deepEqual(await page.locator('main button').allTextContents(), [], 'no buttons');
      assert.equal(await page.getByRole('form').count(), 0, 'no forms');
      await open(page, 'Firewalls');
      assert.equal(await page.getByRole('link', { name: 'Create a firewall' }).count(), 0);

      await open(page, 'Domains');
      await page.getByRole('table', { name: 'Domains' }).getByRole('link', { name: 'viewed.example' }).click();
      await page.getByRole('heading', { name: 'viewed.example' }).waitFor();
      await page.getByRole('table', { name: 'Records' }).getByText('192.0.2.7').waitFor();
      const buttons = await page.locator('main button').allTextContents();
      assert.deepEqual(
        buttons.filter((b) => !['Type', 'Name'].includes(b.replace(/[▲▼\s]/g, ''))),
        [],
        'no buttons but the headings that order the records',
      );
      assert.equal(await page.getByRole('form').count(), 0, 'no forms');
      await open(page, 'Domains');
      assert.equal(await page.getByRole('link', { name: 'Add a domain' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Import a zone' }).count(), 0);
    });
  });
}
