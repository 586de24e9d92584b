import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import type { MachineSpec } from '../../src/compute/driver.ts';
import { diskFiles, machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { QemuDriver } from '../../src/compute/qemu/driver.ts';
import type { MachineNetwork, NetworkBackend } from '../../src/compute/qemu/network-backend.ts';
import { type EffectiveFirewall, renderNftables } from '../../src/domain/firewalls/firewall-nftables.ts';
import { tempDir } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';

const NODE = { id: 1, label: 'web' };
const FIREWALL: EffectiveFirewall = {
  id: 3,
  label: 'edge',
  rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [], outbound: [] },
};
const DROP_ALL = renderNftables(NODE, FIREWALL);
const OPEN = renderNftables(NODE, { ...FIREWALL, rules: { ...FIREWALL.rules, inbound_policy: 'ACCEPT' } });

type Call = { call: 'attach' | 'detach' | 'applyFirewall'; key: string; ruleset?: string | null; qemuRan?: boolean };

/** A network backend that records its calls; `refuse` makes the firewall loads fail, as nft would. */
class RecordingNetwork implements NetworkBackend {
  readonly mode = 'bridge';
  calls: Call[] = [];
  refuse = false;
  /** A file the launch prefix writes: whether QEMU's command had run when the firewall was loaded. */
  readonly qemuMarker: string;

  constructor(qemuMarker: string) {
    this.qemuMarker = qemuMarker;
  }

  async attach(spec: MachineSpec): Promise<MachineNetwork> {
    this.calls.push({ call: 'attach', key: spec.key });
    // Stands in for QEMU: leaves the marker and fails, so the launch stops there.
    return { qemuArgs: [], launchPrefix: ['sh', '-c', `touch '${this.qemuMarker}'; exit 3`, 'qemu'], ports: [] };
  }

  async detach(key: string): Promise<void> {
    this.calls.push({ call: 'detach', key });
  }

  async applyFirewall(key: string, ruleset: string | null): Promise<void> {
    this.calls.push({ call: 'applyFirewall', key, ruleset, qemuRan: fs.existsSync(this.qemuMarker) });
    if (this.refuse) throw new Error('nft refused it');
  }

  async traffic(): Promise<null> {
    return null;
  }
}

function driverIn(t: TestContext) {
  const dir = path.join(tempDir(t), 'compute');
  const network = new RecordingNetwork(path.join(dir, 'qemu-ran'));
  const driver = new QemuDriver({
    dir,
    network,
    memoryMb: 1024,
    log: capturedLog().logger,
    accelerator: { accel: 'tcg', reason: 'test' },
  });
  return { dir, network, driver };
}

/** A process the driver takes for the machine's QEMU: its command line names qemu-system and the pid file. */
function fakeQemu(t: TestContext, pidFile: string): void {
  fs.mkdirSync(path.dirname(pidFile), { recursive: true });
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', 'qemu-system-x86_64', pidFile], {
    stdio: 'ignore',
  });
  t.after(() => child.kill('SIGKILL'));
  fs.writeFileSync(pidFile, `${child.pid}\n`);
}

test('a firewall given for a machine that is not running is kept, not loaded; null removes it; a ruleset of another shape is refused', async (t) => {
  const { dir, network, driver } = driverIn(t);
  const files = machineFiles(dir, 'node-1');

  await driver.applyFirewall('node-1', DROP_ALL);
  assert.equal(fs.readFileSync(files.firewall, 'utf8'), DROP_ALL);
  assert.equal((fs.statSync(files.firewall).mode & 0o777).toString(8), '600');
  assert.deepEqual(network.calls, []);

  await assert.rejects(driver.applyFirewall('node-1', 'flush ruleset\n'), /not part of a node ruleset/);
  assert.equal(fs.readFileSync(files.firewall, 'utf8'), DROP_ALL, 'the last ruleset stays');

  await driver.applyFirewall('node-1', null);
  assert.ok(!fs.existsSync(files.firewall));
  await driver.applyFirewall('node-1', null);

  await driver.applyFirewall('node-1', OPEN);
  await driver.destroy('node-1');
  assert.ok(!fs.existsSync(files.folder), 'destroy takes the kept firewall with the folder');
});

test('a firewall given for a running machine is loaded at once; one the network refuses leaves the last one kept', async (t) => {
  const { dir, network, driver } = driverIn(t);
  const files = machineFiles(dir, 'node-1');
  fakeQemu(t, files.pid);

  await driver.applyFirewall('node-1', DROP_ALL);
  assert.deepEqual(network.calls, [{ call: 'applyFirewall', key: 'node-1', ruleset: DROP_ALL, qemuRan: false }]);
  assert.equal(fs.readFileSync(files.firewall, 'utf8'), DROP_ALL);

  network.refuse = true;
  await assert.rejects(driver.applyFirewall('node-1', OPEN), /nft refused it/);
  assert.equal(fs.readFileSync(files.firewall, 'utf8'), DROP_ALL);
  await assert.rejects(driver.applyFirewall('node-1', null), /nft refused it/);
  assert.equal(fs.readFileSync(files.firewall, 'utf8'), DROP_ALL);
});

test('a start loads the kept firewall after the network is attached and before QEMU runs, and none when none is kept', async (t) => {
  const { dir, network, driver } = driverIn(t);
  const disk = diskFiles(dir, 'disk-1');
  fs.mkdirSync(disk.folder, { recursive: true });
  for (const file of [disk.disk, disk.kernel]) fs.writeFileSync(file, '');
  const spec: MachineSpec = {
    key: 'node-1',
    region: 'us-east',
    memoryMb: 64,
    vcpus: 1,
    devices: ['disk-1'],
    rootDevice: 0,
    boot: 'image',
    interfaces: [],
  };

  await driver.applyFirewall('node-1', DROP_ALL);
  await assert.rejects(driver.start(spec, { timeoutMs: 1000 }), /sh -c .* failed/);
  assert.ok(fs.existsSync(network.qemuMarker), "QEMU's command ran");
  assert.deepEqual(network.calls, [
    { call: 'attach', key: 'node-1' },
    { call: 'applyFirewall', key: 'node-1', ruleset: DROP_ALL, qemuRan: false },
    { call: 'detach', key: 'node-1' },
  ]);

  fs.rmSync(network.qemuMarker);
  network.calls = [];
  await driver.applyFirewall('node-1', null);
  await assert.rejects(driver.start(spec, { timeoutMs: 1000 }));
  assert.deepEqual(network.calls[1], { call: 'applyFirewall', key: 'node-1', ruleset: null, qemuRan: false });
});
