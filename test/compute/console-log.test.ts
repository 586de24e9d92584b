import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { BOOTED_MARKER } from '../../src/compute/images/guest.ts';
import { consoleLogTail, rotateConsoleLog } from '../../src/compute/qemu/console-log.ts';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { LiveMachine } from '../../src/compute/qemu/live-machine.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { tempDir } from '../helpers/app.ts';

const CAP = 8 * 1024;

/** `n` bytes of numbered lines, so that which bytes were kept can be told apart. */
function lines(from: number, count: number): Buffer {
  return Buffer.from(Array.from({ length: count }, (_, i) => `line ${String(from + i).padStart(6, '0')}\n`).join(''));
}

function filesIn(t: Parameters<typeof tempDir>[0]) {
  const files = machineFiles(tempDir(t), 'node-1');
  fs.mkdirSync(files.folder, { recursive: true });
  return files;
}

test('a console log past its cap is rotated: the newest bytes kept in console.log.1, the log emptied in place under its writer', async (t) => {
  const files = filesIn(t);
  // Held open for appending, as QEMU holds it (logappend=on).
  const writer = fs.openSync(files.consoleLog, 'a');
  t.after(() => fs.closeSync(writer));
  fs.writeSync(writer, lines(0, 500));
  assert.equal(await rotateConsoleLog(files, 64 * 1024), false, 'under the cap it is left alone');
  assert.equal(fs.existsSync(files.previousConsoleLog), false);

  const written: Buffer[] = [];
  let most = 0;
  // A chatty guest: 1 200 lines (15 KB) between two checks, 100 checks (1.5 MB) against an 8 KB cap.
  for (let n = 0; n < 100; n++) {
    const chunk = lines(1000 + n * 1200, 1200);
    fs.writeSync(writer, chunk);
    written.push(chunk);
    const taken =
      fs.statSync(files.consoleLog).size + (fs.statSync(files.previousConsoleLog, { throwIfNoEntry: false })?.size ?? 0);
    most = Math.max(most, taken);
    assert.equal(await rotateConsoleLog(files, CAP), true);
  }
  // The cap kept, and at most what the guest printed since the last check.
  assert.ok(most <= CAP + (written[0]?.length ?? 0), `the logs together stay bounded (${most} bytes at most)`);
  const all = Buffer.concat(written);
  const previous = fs.readFileSync(files.previousConsoleLog);
  assert.equal(previous.length, CAP);
  assert.ok(all.subarray(all.length - CAP).equals(previous), 'the newest bytes are the ones kept');
  assert.equal(fs.statSync(files.consoleLog).size, 0);

  // The writer's next bytes land at the start of the emptied log, not past a hole.
  fs.writeSync(writer, 'after\n');
  assert.equal(fs.readFileSync(files.consoleLog, 'utf8'), 'after\n');
  // What the console printed last reads across both files.
  const tail = consoleLogTail(files, 64);
  assert.equal(tail.length, 64);
  assert.ok(tail.toString().endsWith(`${previous.subarray(-58).toString()}after\n`));
});

test('an adopted machine is up when a process saw it up, or when either console log shows a marker', async (t) => {
  const connect = async (files: ReturnType<typeof filesIn>) => {
    // No QEMU behind it: no sockets to reach (adopted machines go on without them) and a pid that is not QEMU's.
    const machine = await LiveMachine.connect({ key: 'node-1', pid: process.pid, files, memoryMb: 64 }, false);
    const result = await machine.waitUp(10);
    machine.release();
    return result;
  };
  const seen = filesIn(t);
  fs.writeFileSync(seen.guestUp, '');
  fs.writeFileSync(seen.consoleLog, 'nothing but noise\n');
  assert.equal(await connect(seen), 'up');
  const rotated = filesIn(t);
  fs.writeFileSync(rotated.previousConsoleLog, `${BOOTED_MARKER}\n`);
  fs.writeFileSync(rotated.consoleLog, 'later noise\n');
  assert.equal(await connect(rotated), 'up');
  const never = filesIn(t);
  fs.writeFileSync(never.consoleLog, 'still booting\n');
  assert.notEqual(await connect(never), 'up');
});

test('CUMULO_CONSOLE_LOG_MB: 4 unless set, a whole number of MB from 1 to 1024', () => {
  assert.equal(loadConfig({}).consoleLogMb, 4);
  assert.equal(loadConfig({ CUMULO_CONSOLE_LOG_MB: '16' }).consoleLogMb, 16);
  for (const bad of ['0', '1.5', '2048', 'big']) {
    assert.throws(
      () => loadConfig({ CUMULO_CONSOLE_LOG_MB: bad }),
      (e) => e instanceof ConfigError && /CUMULO_CONSOLE_LOG_MB/.test(e.message),
    );
  }
});
