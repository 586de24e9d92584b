import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { VERSION } from '../../src/version.ts';
import { ADMIN_TOKEN, tempDir } from '../helpers/app.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';

test('serve --port 0 --print-url --ready-file: a script learns where Cumulo listens from its first line, or from a file written whole', async (t) => {
  const dataDir = tempDir(t);
  const readyFile = path.join(dataDir, 'ready.json');
  const child = spawn(process.execPath, [CUMULO_BIN, 'serve', '--port', '0', '--print-url', '--ready-file', readyFile], {
    env: { ...process.env, CUMULO_DATA_DIR: dataDir, CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (!stdout.includes('\n')) {
    if (Date.now() > deadline) assert.fail(`no URL on stdout:\n${stderr}`);
    await sleep(50);
  }

  // stdout holds the URL alone; the banner and the log went to stderr.
  const url = stdout.split('\n')[0] ?? '';
  assert.match(url, /^http:\/\/127\.0\.0\.1:[1-9]\d*\/v4$/);
  assert.match(
    stderr,
    new RegExp(`Cumulo is ready at ${url.replaceAll('.', '\\.')} \\(version ${VERSION.replaceAll('.', '\\.')}`),
  );
  assert.match(stderr, /"msg":"Server listening at/);
  const regions = await fetch(`${url}/regions`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(regions.status, 200);
  assert.deepEqual(JSON.parse(fs.readFileSync(readyFile, 'utf8')), { url, version: VERSION, pid: child.pid });
  assert.deepEqual(
    fs.readdirSync(dataDir).filter((f) => f.includes('.writing')),
    [],
    'no staging file left',
  );

  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.equal(stdout, `${url}\n`, 'nothing else on stdout, to the end');
});

test('serve --port refuses what is not a port, before it starts anything', async (t) => {
  const dataDir = tempDir(t);
  for (const port of ['x', '70000']) {
    const child = spawn(process.execPath, [CUMULO_BIN, 'serve', '--port', port], {
      env: { ...process.env, CUMULO_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.notEqual(code, 0);
    assert.match(stderr, /port|PORT/, stderr);
  }
  assert.deepEqual(fs.readdirSync(dataDir), [], 'no database was made');
});
