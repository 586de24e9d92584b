import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { hashRootPass, rootPassMatches } from '../../src/domain/nodes/root-pass.ts';

function installation(t: { after(fn: () => void): void }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-rootpass-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { config: loadConfig({ CUMULO_DATA_DIR: dataDir }) };
}

test('root password hashes: salted, keyed with the installation key, and they verify', async (t) => {
  const ctx = installation(t);
  const first = hashRootPass(ctx, 'Correct-horse-1');
  const second = hashRootPass(ctx, 'Correct-horse-1');
  assert.match(first, /^hmac-sha256\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  assert.notEqual(first, second, 'a fresh salt every time');
  assert.ok(!first.includes('Correct-horse-1'));
  assert.equal(await rootPassMatches(ctx, 'Correct-horse-1', first), true);
  assert.equal(await rootPassMatches(ctx, 'Correct-horse-2', first), false);

  const keyFile = path.join(ctx.config.dataDir, 'secrets', 'root-pass.key');
  assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600, 'only the owner reads the key');
  const other = installation(t);
  assert.equal(await rootPassMatches(other, 'Correct-horse-1', first), false, 'another installation has another key');
});

test('root password hashes of the older scrypt form still verify', async (t) => {
  const ctx = installation(t);
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync('Old-password-1', salt, 32, { N: 1024, r: 8, p: 1 });
  const stored = ['scrypt', 1024, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
  assert.equal(await rootPassMatches(ctx, 'Old-password-1', stored), true);
  assert.equal(await rootPassMatches(ctx, 'Old-password-2', stored), false);
  assert.equal(await rootPassMatches(ctx, 'Old-password-1', 'garbage'), false);
});
