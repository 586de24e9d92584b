import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { admin, newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp, tempDir } from '../helpers/app.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';
import { cumulo, ok, operatorApp, run, snapshotOf } from '../operator/helpers.ts';

const KEY_LINE = /^ssh-ed25519 (AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43}) managed@([0-9A-Fa-f-]{36})$/;

async function sshKey(app: TestApp, token?: string): Promise<string> {
  const body = await ok(app.request('GET', '/v4/managed/credentials/sshkey', token ? { token } : {}));
  assert.deepEqual(Object.keys(body), ['ssh_key']);
  return body.ssh_key;
}

async function euuidOf(app: TestApp, token?: string): Promise<string> {
  return (await ok(app.request('GET', '/v4/account', token ? { token } : {}))).euuid;
}

/** What `ssh-keygen -l -f` (Debian openssh-client) says of a key written to a file. */
async function sshKeygen(dir: string, name: string, content: string, ...args: string[]): Promise<string> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content, { mode: 0o600 });
  const { stdout } = await run(systemTool('ssh-keygen'), [...args, '-f', file]);
  return stdout.trim();
}

for (const dialect of DIALECTS) {
  describe(`managed SSH key [${dialect}]`, () => {
    test(
      'an ed25519 public key in OpenSSH form that ssh-keygen reads, named for the account, the same on every call',
      needs('ssh-keygen'),
      async (t) => {
        const app = await buildTestApp(t, { dialect });
        const key = await sshKey(app);
        const match = KEY_LINE.exec(key);
        assert.ok(match, key);
        assert.equal(match[2], await euuidOf(app), 'managed@<the account euuid>');
        const blob = Buffer.from(match[1] as string, 'base64');
        const fingerprint = `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
        const dir = tempDir(t);
        assert.equal(await sshKeygen(dir, 'managed.pub', `${key}\n`, '-l'), `256 ${fingerprint} managed@${match[2]} (ED25519)`);
        assert.equal(await sshKey(app), key);
        assert.equal(await sshKey(app), key);

        const other = await newAccount(app);
        const theirs = await sshKey(app, other.token);
        assert.notEqual(theirs, key);
        assert.equal(KEY_LINE.exec(theirs)?.[2], await euuidOf(app, other.token));
      },
    );

    test('with CUMULO_SEED, a fresh run answers the same key; without, every installation has its own', async (t) => {
      const seeded = [
        await buildTestApp(t, { dialect, config: { seed: 7 } }),
        await buildTestApp(t, { dialect, config: { seed: 7 } }),
      ];
      const [a, b] = await Promise.all(seeded.map((app) => sshKey(app)));
      assert.equal(a, b);
      const unseeded = [await buildTestApp(t, { dialect }), await buildTestApp(t, { dialect })];
      const [c, d] = await Promise.all(unseeded.map((app) => sshKey(app)));
      assert.notEqual(c?.split(' ')[1], d?.split(' ')[1]);
    });

    test('20 first requests at once make one key pair, and all answer it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const keys = await Promise.all(Array.from({ length: 20 }, () => sshKey(app)));
      assert.equal(new Set(keys).size, 1, keys.join('\n'));
      const rows = await app.runtime.ctx.db.selectFrom('managed_ssh_keys').selectAll().execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.account_id, me.accountId);
      assert.equal(rows[0]?.public_key, keys[0]);
    });

    test(
      'the private key is stored sealed, never in a snapshot; the operator reveals it as a key ssh reads',
      needs('ssh-keygen'),
      async (t) => {
        const app = await operatorApp(t, dialect);
        const me = await admin(app);
        const key = await sshKey(app);
        const row = await app.runtime.ctx.db
          .selectFrom('managed_ssh_keys')
          .selectAll()
          .where('account_id', '=', me.accountId)
          .executeTakeFirstOrThrow();
        assert.match(row.private_key_sealed, new RegExp(`^v1:${app.runtime.ctx.secrets.keyId}:`));

        const revealed = await ok(app.admin('POST', `/admin/managed/ssh-keys/${me.accountId}/reveal`));
        assert.deepEqual(Object.keys(revealed).sort(), ['account_id', 'private_key', 'ssh_key']);
        assert.equal(revealed.ssh_key, key);
        assert.match(revealed.private_key, /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
        const dir = tempDir(t);
        assert.equal(
          await sshKeygen(dir, 'managed', revealed.private_key, '-y'),
          key,
          'ssh-keygen derives the public key from it',
        );

        const body = revealed.private_key.split('\n').slice(1, -2).join('');
        const snapshot = await snapshotOf(app);
        assert.ok(snapshot.includes(row.private_key_sealed));
        for (const text of ['PRIVATE KEY', body, body.slice(0, 40), body.slice(-40)]) assert.ok(!snapshot.includes(text), text);
        assert.ok(!JSON.stringify(row).includes(body.slice(0, 40)));
      },
    );

    test('the operator reveal makes the pair for an account that never asked; 404 for no such account', async (t) => {
      const app = await operatorApp(t, dialect);
      const other = await newAccount(app);
      const revealed = await ok(app.admin('POST', `/admin/managed/ssh-keys/${other.accountId}/reveal`));
      assert.equal(revealed.account_id, other.accountId);
      assert.equal(await sshKey(app, other.token), revealed.ssh_key);
      assert.equal((await app.admin('POST', '/admin/managed/ssh-keys/999999/reveal')).status, 404);

      const res = await cumulo(app, ['admin', 'managed', 'reveal-ssh-key', String(other.accountId)], {
        env: { LOG_LEVEL: 'info' },
      });
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout), revealed);
      assert.match(res.stderr, /managed SSH private key revealed to the operator/);
      assert.ok(!res.stderr.includes('PRIVATE KEY'));
    });
  });
}
