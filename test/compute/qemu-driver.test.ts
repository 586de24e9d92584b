import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { ComputeEvent, DeploySettings, DiskSpec, MachineSpec } from '../../src/compute/driver.ts';
import { BOOTED_MARKER } from '../../src/compute/images/guest.ts';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { QemuDriver } from '../../src/compute/qemu/driver.ts';
import { chooseAccelerator } from '../../src/compute/qemu/kvm.ts';
import { livePid } from '../../src/compute/qemu/qemu-process.ts';
import { buildTestImage } from '../../src/compute/qemu/test-image.ts';
import { UserNetwork } from '../../src/compute/qemu/user-network.ts';
import { tempDir } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const PASSWORD_HASH = '$6$cumulotest$Vt0Qm5p3oHh0yq3kKkqk9qWqzv2E4pR1Ukq0zj3HfKdzN0i1zjv3m0cQ0Y5h2w1Zs8eXoV7uL6nT4aB9cD0eF/';
const GREETING = `it's "quoted" $HOME \\ and ok`;
const MEMORY_MB = 1024;

/** Resolves once `check` holds, polling; fails with `what` after `timeoutMs`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

test(
  'the qemu driver deploys the test image with its settings, stops a guest not up in time, reports a crash, boots, is adopted by a second driver, reports a guest power-off, stops and destroys',
  needs('qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen'),
  async (t) => {
    const image = await buildTestImage(path.join(os.tmpdir(), 'cumulo-compute-cache'));
    const drivers: QemuDriver[] = [];
    let dir = '';
    // Before tempDir's own hook, which removes the pid files this one reads.
    t.after(async () => {
      for (const driver of drivers) await driver.close();
      const machines = path.join(dir, 'machines');
      for (const key of fs.existsSync(machines) ? fs.readdirSync(machines) : []) {
        const pid = livePid(machineFiles(dir, key).pid);
        if (pid !== null) process.kill(pid, 'SIGKILL');
      }
    });
    dir = path.join(tempDir(t), 'compute');
    const sshKey = path.join(dir, '..', 'id_ed25519');
    await exec(systemTool('ssh-keygen'), ['-q', '-t', 'ed25519', '-N', '', '-f', sshKey]);

    const accelerator = await chooseAccelerator();
    const network = new UserNetwork({ ports: [8080] });
    const { logger } = capturedLog();
    const driverOn = () => {
      const driver = new QemuDriver({ dir, network, memoryMb: MEMORY_MB, log: logger, accelerator });
      drivers.push(driver);
      return driver;
    };
    const events: ComputeEvent[] = [];
    const first = driverOn();
    await first.open((event) => events.push(event));

    const capacity = await first.diskCapacityMb();
    assert.ok(
      capacity > 0 && capacity < 1024 * 1024 * 1024,
      `the storage for disks is what its filesystem holds (${capacity} MB)`,
    );

    const root: DiskSpec = { key: 'disk-1', sizeMb: 256, filesystem: 'ext4' };
    const swap: DiskSpec = { key: 'disk-2', sizeMb: 32, filesystem: 'swap' };
    await first.prepareDisk(root);
    await first.prepareDisk(swap);
    const rootFile = path.join(dir, 'disks', 'disk-1', 'disk.img');
    const blank = fs.statSync(rootFile);
    await first.prepareDisk(root);
    assert.equal(fs.statSync(rootFile).mtimeMs, blank.mtimeMs, 'a second prepare leaves the disk');

    const addresses = { interface: 'eth0', ipv4: ['192.0.2.10/24'], gateway4: '192.0.2.1', ipv6: '2001:db8::10/64' };
    const settings: DeploySettings = {
      hostname: 'node-one',
      rootPasswordHash: PASSWORD_HASH,
      authorizedKeys: [fs.readFileSync(`${sshKey}.pub`, 'utf8')],
      network: [addresses, { interface: 'eth1', ipv4: ['192.168.128.5/17'] }],
      firstBoot: { script: '#!/bin/sh\necho "$GREETING" >> /root/firstboot-ran\n', env: { GREETING } },
    };
    await first.deployImage(root, { disk: image.disk, format: 'raw', kernel: image.kernel, initrd: image.initrd }, settings);
    const deployed = fs.statSync(rootFile);
    assert.equal(deployed.size, 256 * 1024 * 1024);
    assert.ok(deployed.blocks * 512 < deployed.size / 2, 'the deployed disk is sparse');

    const spec: MachineSpec = {
      key: 'node-1',
      region: 'us-east',
      memoryMb: 256,
      vcpus: 1,
      devices: [root.key, null, swap.key],
      rootDevice: 0,
      boot: 'image',
      interfaces: [
        { mac: 'f2:3c:91:00:00:01', purpose: 'public', addresses },
        { mac: 'f2:3c:91:00:00:02', purpose: 'vlan', vlan: 'backend', addresses: null },
      ],
    };
    // A guest not up in time is stopped; one whose QEMU dies while it boots is a crash.
    await assert.rejects(
      first.start(spec, { timeoutMs: 300 }),
      /machine node-1 was not up within 0\.3 s and was stopped; the last lines of its console:/,
    );
    assert.equal(await first.state(spec.key), 'stopped');
    const files = machineFiles(dir, spec.key);
    const crashing = first.start(spec, { timeoutMs: 120_000 });
    await eventually(
      'the kernel on the console',
      () => fs.existsSync(files.consoleLog) && fs.readFileSync(files.consoleLog, 'utf8').includes('Linux version'),
    );
    process.kill(livePid(files.pid) ?? assert.fail('no QEMU running'), 'SIGKILL');
    await assert.rejects(
      crashing,
      /machine node-1 ended before its guest was up; the last lines of its console:\n\[ *\d+\.\d+\] /,
    );
    assert.deepEqual(events.splice(0), [{ key: spec.key, kind: 'crashed' }]);
    assert.equal(first.memoryFreeMb(), MEMORY_MB);

    let began = Date.now();
    await first.start(spec, { timeoutMs: 120_000 });
    t.diagnostic(`first boot: ${Date.now() - began} ms under ${accelerator.accel}`);
    assert.equal(await first.state(spec.key), 'running');
    assert.equal(first.memoryFreeMb(), MEMORY_MB - 256);
    const ports = first.ports(spec.key);
    assert.deepEqual(
      ports.map((p) => [p.guest, p.address]),
      [
        [22, '127.0.0.1'],
        [8080, '127.0.0.1'],
      ],
    );
    let sshPort = ports[0]?.host ?? 0;
    const ssh = async (command: string) =>
      (
        await exec(systemTool('ssh'), [
          ...['-i', sshKey, '-p', String(sshPort), '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30'],
          ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
          'root@127.0.0.1',
          command,
        ])
      ).stdout;

    assert.equal(await ssh('hostname'), 'node-one\n');
    assert.equal(await ssh('cut -d: -f1,2 /etc/shadow'), `root:${PASSWORD_HASH}\n`);
    assert.match(await ssh('cat /etc/hosts'), /^127\.0\.1\.1\tnode-one$/m);
    const links = await ssh('ip addr show eth0; ip addr show eth1; ip -6 route; ls /dev/vdb');
    assert.match(links, /link\/ether f2:3c:91:00:00:01/);
    assert.match(links, /inet 192\.0\.2\.10\/24/);
    assert.match(links, /inet6 2001:db8::10\/64/);
    assert.match(links, /default via fe80::1 dev eth0/);
    assert.match(links, /link\/ether f2:3c:91:00:00:02/);
    assert.match(links, /inet 192\.168\.128\.5\/17/);
    assert.match(links, /\/dev\/vdb/, 'the disk after an empty device is the second virtio disk');
    await eventually('the first-boot script', async () => (await ssh('ls /etc/cumulo')).includes('firstboot.done'));
    assert.equal(await ssh('cat /root/firstboot-ran'), `${GREETING}\n`);
    assert.equal(await ssh('cat /var/log/cumulo-firstboot.log'), '');

    const counters = await first.counters(spec.key);
    assert.ok(counters && counters.cpuSeconds > 0 && counters.diskReadBytes > 0, JSON.stringify(counters));
    // User networking has no host side to count on: its SSH traffic above is not seen.
    const uncounted = { inBytes: 0, outBytes: 0, localInBytes: 0, localOutBytes: 0 };
    assert.deepEqual([counters.ipv4, counters.ipv6], [uncounted, uncounted]);

    const console1 = first.console(spec.key);
    if (!console1) assert.fail('no console for a running machine');
    assert.ok(console1.screen().toString().includes(BOOTED_MARKER));
    const stream = console1.attach();
    let seen = '';
    stream.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
    });
    stream.write('\n');
    await eventually('a login prompt on the attached console', () => seen.includes('node-one login:'), 30_000);
    stream.destroy();
    began = Date.now();
    await first.start(spec, { timeoutMs: 1_000 });
    assert.ok(Date.now() - began < 1_000, 'a start of a running machine that is up returns at once');

    // A server restart: the first driver lets go, a second one on the same folder takes the machine over.
    await first.close();
    const second = driverOn();
    await second.open((event) => events.push(event));
    assert.equal(await second.state(spec.key), 'running');
    assert.deepEqual(second.ports(spec.key), ports);
    const console2 = second.console(spec.key);
    if (!console2) assert.fail('no console for the adopted machine');
    assert.ok(console2.screen().toString().includes('node-one login:'), 'the screen is replayed from the console log');
    const stream2 = console2.attach();
    let seen2 = '';
    stream2.on('data', (chunk: Buffer) => {
      seen2 += chunk.toString();
    });
    stream2.write('\n');
    await eventually('a login prompt on the adopted console', () => seen2.includes('node-one login:'), 30_000);

    await ssh('poweroff').catch(() => '');
    await eventually('the powered_off event', () => events.length > 0);
    assert.deepEqual(events, [{ key: spec.key, kind: 'powered_off' }]);
    assert.ok(stream2.readableEnded || (await new Promise((r) => stream2.once('end', () => r(true)))), 'the console stream ends');
    assert.equal(await second.state(spec.key), 'stopped');
    assert.deepEqual(second.ports(spec.key), []);
    assert.equal(second.memoryFreeMb(), MEMORY_MB);
    assert.equal(second.console(spec.key), null);

    began = Date.now();
    await second.start(spec, { timeoutMs: 120_000 });
    t.diagnostic(`second boot: ${Date.now() - began} ms`);
    sshPort = second.ports(spec.key)[0]?.host ?? 0;
    assert.equal(await ssh('cat /root/firstboot-ran'), `${GREETING}\n`, 'the first-boot script ran once');
    began = Date.now();
    await second.stop(spec.key, { graceMs: 30_000 });
    t.diagnostic(`stop (ACPI power-off): ${Date.now() - began} ms`);
    assert.equal(await second.state(spec.key), 'stopped');
    assert.equal(events.length, 1, 'a stop asked for is no event');

    await second.destroy(spec.key);
    await second.deleteDisk(root.key);
    await second.deleteDisk(swap.key);
    await second.close();
    assert.deepEqual(fs.readdirSync(path.join(dir, 'machines')), []);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'disks')), []);
  },
);
