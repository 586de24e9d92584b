import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { livePid } from '../../src/compute/qemu/qemu-process.ts';
import { COMPUTE_DIR } from '../../src/data-dir.ts';
import { tempDir } from '../helpers/app.ts';
import { createRealNode, REAL_NODE_TOOLS, sshKeyPair, startRealCloud, storeBusybox } from '../helpers/real-nodes.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

/**
 * A `qemu-system-x86_64` first on PATH that fails as QEMU does when it cannot start a machine while
 * the file `fails` exists, and is the real one otherwise.
 */
function failingQemu(dir: string, fails: string): string {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const script = [
    '#!/bin/sh',
    `if [ -e '${fails}' ]; then echo 'qemu-system-x86_64: could not open disk image: Input/output error' >&2; exit 1; fi`,
    `exec '${systemTool('qemu-system-x86_64')}' "$@"`,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(bin, 'qemu-system-x86_64'), script, { mode: 0o755 });
  return bin;
}

test(
  'real work that fails for good ends its event failed with the node offline and no machine left; the node boots once the host is mended',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const dir = tempDir(t);
    const fails = path.join(dir, 'qemu-fails');
    const bin = failingQemu(dir, fails);
    const cloud = await startRealCloud(t, { PATH: `${bin}:${process.env.PATH ?? ''}` });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);
    fs.writeFileSync(fails, '');
    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'unlucky', publicKey: key.publicKey });

    let created: { status: string; percent_complete: number } | undefined;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const events = (await cloud.api('GET', '/v4/account/events?page_size=25')).body.data as {
        action: string;
        status: string;
        percent_complete: number;
        entity: { id: number } | null;
      }[];
      created = events.find((e) => e.action === 'node_create' && e.entity?.id === id);
      if (created?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(created?.status, 'failed', 'three starts that fail fail the create');
    const node = (await cloud.api('GET', `/v4/node/instances/${id}`)).body;
    assert.equal(node.status, 'offline');
    const machine = machineFiles(path.join(cloud.dataDir, COMPUTE_DIR), `node-${id}`);
    assert.equal(livePid(machine.pid), null, 'no QEMU process is left for the node');
    assert.match(cloud.server().output(), /could not open disk image/, "QEMU's own error is in the log");

    fs.rmSync(fails);
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/boot`, {})).status, 200);
    await cloud.waitForStatus(id, 'running');
    const disks = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { status: string }[];
    assert.deepEqual(
      disks.map((d) => d.status),
      ['ready', 'ready'],
    );
  },
);
