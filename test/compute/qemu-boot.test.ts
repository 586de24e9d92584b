import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { BOOTED_MARKER } from '../../src/compute/images/guest.ts';
import { readExt4File, withRootPassword, writeExt4Files } from '../../src/compute/qemu/ext4-settings.ts';
import { chooseAccelerator } from '../../src/compute/qemu/kvm.ts';
import { startMachine } from '../../src/compute/qemu/machine.ts';
import { QmpClient } from '../../src/compute/qemu/qmp.ts';
import { buildTestImage } from '../../src/compute/qemu/test-image.ts';
import { tempDir } from '../helpers/app.ts';
import { freePort } from '../helpers/server-process.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const run = promisify(execFile);
const PASSWORD_HASH = '$6$cumulotest$Vt0Qm5p3oHh0yq3kKkqk9qWqzv2E4pR1Ukq0zj3HfKdzN0i1zjv3m0cQ0Y5h2w1Zs8eXoV7uL6nT4aB9cD0eF/';

test(
  'the test image boots under QEMU with the hostname, key and password hash written by debugfs, answers SSH, shows a login prompt on its console and powers off on ACPI',
  needs('qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen'),
  async (t) => {
    const image = await buildTestImage(path.join(os.tmpdir(), 'cumulo-compute-cache'));
    const dir = tempDir(t);
    const disk = path.join(dir, 'disk.img');
    fs.copyFileSync(image.disk, disk);
    const key = path.join(dir, 'id_ed25519');
    await run(systemTool('ssh-keygen'), ['-q', '-t', 'ed25519', '-N', '', '-f', key]);

    const shadow = await readExt4File(disk, '/etc/shadow');
    if (shadow === undefined) assert.fail('the image has no /etc/shadow');
    assert.match(shadow, /^root:/);
    await writeExt4Files(disk, [
      { path: '/etc/hostname', content: 'node-one\n', mode: 0o644 },
      { path: '/root/.ssh/authorized_keys', content: fs.readFileSync(`${key}.pub`), mode: 0o600 },
      { path: '/etc/shadow', content: withRootPassword(shadow, PASSWORD_HASH), mode: 0o600 },
    ]);

    const { accel } = await chooseAccelerator(image);
    const port = await freePort();
    const qmpSocket = path.join(dir, 'qmp.sock');
    const machine = startMachine({
      accel,
      memoryMb: 256,
      kernel: image.kernel,
      initrd: image.initrd,
      append: 'console=ttyS0 root=/dev/vda rw quiet',
      disks: [disk],
      userNet: { forwards: [{ hostPort: port, guestPort: 22 }] },
      qmpSocket,
    });
    t.after(() => machine.process.kill('SIGKILL'));
    assert.ok(await machine.waitFor(BOOTED_MARKER, 120_000), `no "${BOOTED_MARKER}" on the console:\n${machine.console()}`);

    const ssh = (command: string) =>
      run(systemTool('ssh'), [
        ...['-i', key, '-p', String(port), '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30'],
        ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
        'root@127.0.0.1',
        command,
      ]);
    assert.equal((await ssh('hostname')).stdout, 'node-one\n');
    assert.equal((await ssh('cut -d: -f1,2 /etc/shadow')).stdout, `root:${PASSWORD_HASH}\n`);
    assert.ok(await machine.waitFor('node-one login:', 30_000), `no login prompt on the console:\n${machine.console()}`);

    const qmp = await QmpClient.connect(qmpSocket);
    const events: string[] = [];
    qmp.onEvent = (event) => events.push(event);
    await qmp.execute('system_powerdown');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([machine.exited, new Promise<'running'>((r) => (timer = setTimeout(r, 60_000, 'running')))]);
    clearTimeout(timer);
    qmp.close();
    assert.equal(code, 0, `the guest did not power off:\n${machine.console()}`);
    assert.ok(events.includes('SHUTDOWN'), `QMP events: ${events.join(', ')}`);
  },
);
