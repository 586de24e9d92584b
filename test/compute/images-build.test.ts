import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { busybox } from '../../src/compute/images/busybox.ts';
import { debian12 } from '../../src/compute/images/debian12.ts';
import { BOOTED_MARKER, environmentFile } from '../../src/compute/images/guest.ts';
import { type BootImage, buildImage } from '../../src/compute/images/recipe.ts';
import { type Ext4File, readExt4File, writeExt4Files } from '../../src/compute/qemu/ext4-settings.ts';
import { chooseAccelerator } from '../../src/compute/qemu/kvm.ts';
import { type Accelerator, startMachine } from '../../src/compute/qemu/machine.ts';
import { QmpClient } from '../../src/compute/qemu/qmp.ts';
import { publicImageKeys } from '../../src/domain/images/public-image-data.ts';
import { tempDir } from '../helpers/app.ts';
import { freePort } from '../helpers/server-process.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';
import { cumulo, operatorApp } from '../operator/helpers.ts';

const run = promisify(execFile);
const TOOLS = needs('qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen');
/** Two static addresses in QEMU's user network, a stanza each, as the deploy writes a node's addresses. */
const ETH0 = [
  'auto eth0',
  'iface eth0 inet static',
  '  address 10.0.2.15/24',
  '  gateway 10.0.2.2',
  'iface eth0 inet static',
  '  address 10.0.2.16/24',
  '',
].join('\n');

let accelerator: Promise<Accelerator> | undefined;
/** KVM where a guest runs under it, TCG otherwise; probed once for the file. */
function accel(): Promise<Accelerator> {
  accelerator ??= buildImage(busybox)
    .then(chooseAccelerator)
    .then((choice) => choice.accel);
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

/** A copy of the image's disk with `files` written in, and a key pair whose public half is root's authorized key. */
async function deployCopy(t: TestContext, image: BootImage, files: readonly Ext4File[]) {
  const dir = tempDir(t);
  const disk = path.join(dir, 'disk.img');
  fs.copyFileSync(image.disk, disk);
  const key = path.join(dir, 'id_ed25519');
  await run(systemTool('ssh-keygen'), ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  await writeExt4Files(disk, [
    { path: '/root/.ssh/authorized_keys', content: fs.readFileSync(`${key}.pub`), mode: 0o600 },
    { path: '/etc/network/interfaces.d/eth0', content: ETH0, mode: 0o644 },
    ...files,
  ]);
  return { dir, disk, key };
}

/** Boots the deployed disk (root=/dev/vda console=ttyS0, nothing else on the command line) with SSH forwarded. */
async function boot(t: TestContext, image: BootImage, deployed: { dir: string; disk: string; key: string }) {
  const port = await freePort();
  const qmpSocket = path.join(deployed.dir, 'qmp.sock');
  const accelerator = await accel();
  const started = Date.now();
  const machine = startMachine({
    accel: accelerator,
    memoryMb: 512,
    kernel: image.kernel,
    initrd: image.initrd,
    append: 'root=/dev/vda console=ttyS0',
    disks: [deployed.disk],
    userNet: { forwards: [{ hostPort: port, guestPort: 22 }] },
    qmpSocket,
  });
  t.after(() => machine.process.kill('SIGKILL'));
  assert.ok(await machine.waitFor(BOOTED_MARKER, 180_000), `no "${BOOTED_MARKER}" on the console:\n${machine.console()}`);
  const bootedAfter = Date.now() - started;
  const ssh = async (command: string) =>
    (
      await run(systemTool('ssh'), [
        ...['-i', deployed.key, '-p', String(port), '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30'],
        ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
        'root@127.0.0.1',
        command,
      ])
    ).stdout;
  assert.equal(await ssh('echo up'), 'up\n');
  t.diagnostic(
    `booted after ${(bootedAfter / 1000).toFixed(1)} s, SSH answered after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { machine, ssh, qmpSocket };
}

describe('image recipes', TOOLS, () => {
  test('busybox: a kernel, a cpio initrd and a 64 MB ext4 root; it takes its address from an ifupdown stanza', async (t) => {
    const image = await buildImage(busybox);
    await assertBootImage(image);
    assert.equal(fs.statSync(image.disk).size, 64 * 1024 * 1024);
    assert.match((await readExt4File(image.disk, '/etc/inittab')) ?? '', /ttyS0/);
    assert.deepEqual(await buildImage(busybox), image, 'found in the cache');

    const { ssh } = await boot(t, image, await deployCopy(t, image, []));
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
    const deployed = await deployCopy(t, image, [
      { path: '/etc/hostname', content: 'node-deb\n', mode: 0o644 },
      {
        path: '/etc/cumulo/firstboot',
        content: '#!/bin/bash\necho "ran as $(whoami)"\nprintf %s "$TRICKY" >/root/tricky\n',
        mode: 0o700,
      },
      { path: '/etc/cumulo/firstboot.env', content: environmentFile({ TRICKY: tricky }), mode: 0o600 },
    ]);
    const { machine, ssh, qmpSocket } = await boot(t, image, deployed);

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
    assert.ok(await machine.waitFor('node-deb login:', 60_000), `no login prompt on the console:\n${machine.console()}`);

    const qmp = await QmpClient.connect(qmpSocket);
    await qmp.execute('system_powerdown');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([machine.exited, new Promise<'running'>((r) => (timer = setTimeout(r, 90_000, 'running')))]);
    clearTimeout(timer);
    qmp.close();
    assert.equal(code, 0, `the guest did not power off:\n${machine.console().slice(-3000)}`);
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
