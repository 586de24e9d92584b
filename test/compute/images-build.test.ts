import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { DeploySettings, MachineSpec, NetworkSettings } from '../../src/compute/driver.ts';
import { busybox } from '../../src/compute/images/busybox.ts';
import { debian12 } from '../../src/compute/images/debian12.ts';
import { type BootImage, buildImage } from '../../src/compute/images/recipe.ts';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { QemuDriver } from '../../src/compute/qemu/driver.ts';
import { readExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import { type AcceleratorChoice, chooseAccelerator } from '../../src/compute/qemu/kvm.ts';
import { UserNetwork } from '../../src/compute/qemu/user-network.ts';
import { publicImageKeys } from '../../src/domain/images/public-image-data.ts';
import { tempDir } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';
import { cumulo, operatorApp } from '../operator/helpers.ts';

const run = promisify(execFile);
const TOOLS = needs('qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen');
/** Two static addresses in QEMU's user network, as the deploy writes a node's addresses (a stanza each). */
const ETH0: NetworkSettings = { interface: 'eth0', ipv4: ['10.0.2.15/24', '10.0.2.16/24'], gateway4: '10.0.2.2' };
const KEY = 'node-1';

let accelerator: Promise<AcceleratorChoice> | undefined;
/** KVM where a guest runs under it, TCG otherwise; probed once for the file. */
function accel(): Promise<AcceleratorChoice> {
  accelerator ??= buildImage(busybox).then(chooseAccelerator);
  return accelerator;
}

function headOf(file: string, bytes: number, offset = 0): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    fs.readSync(fd, buffer, 0, bytes, offset);
    return buffer;
  } finally {
    fs.closeSync(fd);
  }
}

/** The three files are what they claim: a kernel bzImage, a newc cpio or gzip initrd, an ext4 filesystem. */
async function assertBootImage(image: BootImage): Promise<void> {
  assert.equal(headOf(image.kernel, 4, 0x202).toString('latin1'), 'HdrS', 'the kernel is a bzImage');
  const initrd = headOf(image.initrd, 6);
  assert.ok(initrd.toString('latin1') === '070701' || (initrd[0] === 0x1f && initrd[1] === 0x8b), 'the initrd is a cpio archive');
  assert.equal(headOf(image.disk, 2, 1024 + 0x38).readUInt16LE(0), 0xef53, 'the disk holds an ext2/3/4 superblock');
}

/**
 * The image deployed by the qemu driver with `settings` (root's key and ETH0 added) and booted with
 * user networking: SSH through its forwarded port 22, and the machine's console log.
 */
async function boot(t: TestContext, image: BootImage, settings: Omit<DeploySettings, 'authorizedKeys' | 'network'>) {
  let driver: QemuDriver | null = null;
  // Before tempDir's own hook, which removes the pid file destroy reads.
  t.after(async () => {
    await driver?.destroy(KEY);
    await driver?.close();
  });
  const dir = tempDir(t);
  const key = path.join(dir, 'id_ed25519');
  await run(systemTool('ssh-keygen'), ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const compute = path.join(dir, 'compute');
  driver = new QemuDriver({
    dir: compute,
    network: new UserNetwork({ ports: [] }),
    memoryMb: 1024,
    log: capturedLog().logger,
    accelerator: await accel(),
  });
  const disk = { key: 'disk-1', sizeMb: Math.ceil(fs.statSync(image.disk).size / 1024 ** 2) + 64, filesystem: 'ext4' as const };
  await driver.deployImage(
    disk,
    { disk: image.disk, format: 'raw', kernel: image.kernel, initrd: image.initrd },
    { ...settings, authorizedKeys: [fs.readFileSync(`${key}.pub`, 'utf8')], network: [ETH0] },
  );
  const spec: MachineSpec = {
    key: KEY,
    region: 'us-east',
    memoryMb: 512,
    vcpus: 1,
    devices: [disk.key],
    rootDevice: 0,
    boot: 'image',
    interfaces: [{ mac: 'f2:3c:91:00:00:01', purpose: 'public', addresses: ETH0 }],
  };
  const started = Date.now();
  await driver.start(spec, { timeoutMs: 180_000 });
  const bootedAfter = Date.now() - started;
  const port = driver.ports(KEY).find((p) => p.guest === 22)?.host ?? assert.fail('no port forwarded to 22');
  const ssh = async (command: string) =>
    (
      await run(systemTool('ssh'), [
        ...['-i', key, '-p', String(port), '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30'],
        ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
        'root@127.0.0.1',
        command,
      ])
    ).stdout;
  assert.equal(await ssh('echo up'), 'up\n');
  t.diagnostic(
    `booted after ${(bootedAfter / 1000).toFixed(1)} s, SSH answered after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const consoleLog = () => fs.readFileSync(machineFiles(compute, KEY).consoleLog, 'utf8');
  return { driver, ssh, consoleLog };
}

describe('image recipes', TOOLS, () => {
  test('busybox: a kernel, a cpio initrd and a 64 MB ext4 root; it takes its address from an ifupdown stanza', async (t) => {
    const image = await buildImage(busybox);
    await assertBootImage(image);
    assert.equal(fs.statSync(image.disk).size, 64 * 1024 * 1024);
    assert.match((await readExt4File(image.disk, '/etc/inittab')) ?? '', /ttyS0/);
    assert.deepEqual(await buildImage(busybox), image, 'found in the cache');

    const { ssh } = await boot(t, image, { hostname: 'node-bb', rootPasswordHash: null });
    assert.equal(await ssh('hostname'), 'node-bb\n');
    const addresses = await ssh('ip -o -4 addr show dev eth0');
    assert.match(addresses, /10\.0\.2\.15\/24/);
    assert.match(addresses, /10\.0\.2\.16\/24/);
  });

  test('debian12: built without host keys, boots with systemd to SSH, names its interface eth0, runs the first-boot script once and powers off on ACPI', async (t) => {
    const image = await buildImage(debian12);
    await assertBootImage(image);
    assert.equal(await readExt4File(image.disk, '/etc/ssh/ssh_host_ed25519_key'), undefined, 'no host key baked in');
    assert.equal(await readExt4File(image.disk, '/etc/machine-id'), '', 'no machine id baked in');
    assert.match(
      (await readExt4File(image.disk, '/etc/shadow')) ?? '',
      /^root:!/m,
      'root is locked until the deploy sets a password',
    );
    const tricky = 'a "quoted" $HOME `tick` \\ backslash\nsecond line';
    const { driver, ssh, consoleLog } = await boot(t, image, {
      hostname: 'node-deb',
      rootPasswordHash: null,
      firstBoot: { script: '#!/bin/bash\necho "ran as $(whoami)"\nprintf %s "$TRICKY" >/root/tricky\n', env: { TRICKY: tricky } },
    });

    assert.equal(await ssh('hostname'), 'node-deb\n');
    assert.equal((await ssh('systemctl is-system-running --wait || systemctl --failed --no-legend')).trim(), 'running');
    const addresses = await ssh('ip -o -4 addr show dev eth0');
    assert.match(addresses, /10\.0\.2\.15\/24/);
    assert.match(addresses, /10\.0\.2\.16\/24/);
    assert.match(await ssh('findmnt -no SOURCE,OPTIONS /'), /^\/dev\/vda rw,/);
    assert.equal(await ssh('ls /etc/ssh/ssh_host_ed25519_key.pub /etc/ssh/ssh_host_rsa_key.pub | wc -l'), '2\n');
    assert.match(await ssh('sshd -T'), /^permitrootlogin yes$/m);
    assert.equal(await ssh('ls /etc/cumulo'), 'firstboot.done\nfirstboot.env\n');
    assert.equal(await ssh('cat /var/log/cumulo-firstboot.log'), 'ran as root\n');
    assert.equal(await ssh('cat /root/tricky'), tricky);
    assert.equal(await ssh('ls /lib/modules'), `${(await ssh('uname -r')).trim()}\n`, "the modules are the booted kernel's");
    const deadline = Date.now() + 60_000;
    while (!consoleLog().includes('node-deb login:') && Date.now() < deadline) await sleep(200);
    assert.match(consoleLog(), /node-deb login:/, 'a login prompt on the console');

    // The ACPI power button: the guest powers itself off well within the grace, not forced off after it.
    const grace = 90_000;
    const asked = Date.now();
    await driver.stop(KEY, { graceMs: grace });
    assert.ok(Date.now() - asked < grace, 'the guest did not power off by itself');
    assert.match(consoleLog().slice(-3000), /reboot: Power down/);
  });

  test('cumulo images build stores the build as blobs linked to the cache; cumulo images lists what is built', async (t) => {
    const app = await operatorApp(t, 'sqlite');
    const before = await cumulo(app, ['images']);
    assert.equal(before.code, 0, before.stderr);
    assert.deepEqual(JSON.parse(before.stdout).data, [
      { id: 'node/debian12', label: 'Debian 12', recipe: 'debian12', built: false },
      { id: 'node/busybox', label: 'Busybox (small test image)', recipe: 'busybox', built: false },
    ]);

    const built = await cumulo(app, ['images', 'build', 'busybox']);
    assert.equal(built.code, 0, built.stderr);
    const image = await buildImage(busybox);
    const answer = JSON.parse(built.stdout);
    assert.equal(answer.recipe, 'busybox');
    assert.deepEqual(answer.images, ['node/busybox']);
    assert.equal(answer.bytes.disk, fs.statSync(image.disk).size);
    const keys = publicImageKeys('busybox');
    for (const part of ['disk', 'kernel', 'initrd'] as const) {
      const stored = await app.runtime.ctx.blobs.localPath(keys[part]);
      assert.ok(stored, part);
      assert.equal(fs.statSync(stored).ino, fs.statSync(image[part]).ino, `${part} is linked, not copied`);
    }

    const after = await cumulo(app, ['images']);
    assert.deepEqual(
      JSON.parse(after.stdout).data.map((i: { recipe: string; built: boolean }) => [i.recipe, i.built]),
      [
        ['debian12', false],
        ['busybox', true],
      ],
    );
    const unknown = await cumulo(app, ['images', 'build', 'arch']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No recipe "arch"; known: busybox, debian12/);
  });
});
