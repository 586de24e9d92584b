import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verify } from 'unixcrypt';
import {
  createRealNode,
  forwardedSsh,
  REAL_NODE_ROOT_PASS,
  REAL_NODE_TOOLS,
  sshKeyPair,
  sshRun,
  startRealCloud,
} from '../helpers/real-nodes.ts';
import { needs } from '../helpers/system-tools.ts';

const ROOT_PASS = REAL_NODE_ROOT_PASS;
/** A value a script's environment must carry intact: quotes, `$`, backquote, backslash and a newline. */
const TRICKY = 'a "quoted" $HOME `tick` \\ backslash\nsecond line';

test(
  'a Debian 12 node through the API: built with the CLI, created with a key, a password and a StackScript, up under systemd with its addresses, host keys of its own and the script run once; its console shows a login prompt; shutdown powers it off by ACPI',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'user', LOG_LEVEL: 'info' });
    await cloud.cli('images', 'build', 'debian12');
    const key = await sshKeyPair(t);
    const script = await cloud.api('POST', '/v4/node/stackscripts', {
      label: 'setup',
      images: ['node/debian12'],
      script: [
        '#!/bin/bash',
        '# <UDF name="greeting" label="What to write" />',
        'echo "ran as $(whoami)"',
        'printf %s "$greeting" >/root/greeting',
        '',
      ].join('\n'),
    });
    assert.equal(script.status, 200, JSON.stringify(script.body));

    const id = await createRealNode(cloud, {
      image: 'node/debian12',
      label: 'debian-one',
      publicKey: key.publicKey,
      extra: { stackscript_id: script.body.id, stackscript_data: { greeting: TRICKY } },
    });
    const started = Date.now();
    await cloud.waitForStatus(id, 'running', 300_000);
    t.diagnostic(`debian12: create to running (SSH up) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const { target } = await forwardedSsh(cloud, id, key.privateKey);
    const ssh = (command: string) => sshRun(target, command, 30);

    assert.equal(await ssh('hostname'), 'debian-one\n');
    assert.ok(verify(ROOT_PASS, (await ssh('getent shadow root')).split(':')[1] ?? ''), "root's hash is the root_pass's");
    assert.equal((await ssh('systemctl is-system-running --wait || systemctl --failed --no-legend')).trim(), 'running');
    const node = (await cloud.api('GET', `/v4/node/instances/${id}`)).body;
    const addresses = await ssh('ip -o addr show dev eth0');
    assert.match(addresses, new RegExp(`inet ${node.ipv4[0].replaceAll('.', '\\.')}/24`));
    assert.ok(addresses.includes(`inet6 ${node.ipv6.split('/')[0]}/64`), addresses);
    assert.match(await ssh('ip route show default'), /^default via \S+ dev eth0/);
    assert.match(await ssh('findmnt -no OPTIONS /'), /^rw,/);
    assert.equal(await ssh('ls /etc/ssh/ssh_host_ed25519_key.pub | wc -l'), '1\n');
    assert.equal(await ssh('ls /etc/cumulo'), 'firstboot.done\nfirstboot.env\n');
    assert.equal(await ssh('cat /var/log/cumulo-firstboot.log'), 'ran as root\n');
    assert.equal(await ssh('cat /root/greeting'), TRICKY);

    const consoleLog = path.join(cloud.dataDir, 'compute', 'machines', `node-${id}`, 'console.log');
    assert.match(fs.readFileSync(consoleLog, 'utf8'), /debian-one login:/);

    const stopping = Date.now();
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/shutdown`, {})).status, 200);
    await cloud.waitForStatus(id, 'offline', 150_000);
    t.diagnostic(`debian12: shutdown (ACPI) to offline in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
    // The guest powered itself off (QMP SHUTDOWN from the guest), not QEMU told to quit or killed. The console's
    // "reboot: Power down" is no proof: the kernel's console drops characters when its reader lags.
    // The log is flushed at least every quarter second.
    const ended = new RegExp(`"machine":"node-${id}","reason":"guest-shutdown","asked":true`);
    for (let tries = 0; tries < 20 && !ended.test(cloud.server().output()); tries++) await sleep(250);
    assert.match(cloud.server().output(), ended);
  },
);
