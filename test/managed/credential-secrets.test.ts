import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { SecretBox } from '../../src/secrets/secret-box.ts';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';
import { cumulo, OPERATOR_TOKEN, ok, snapshotOf } from '../operator/helpers.ts';
import { createCredential, uniqueSecret } from './credential-helpers.ts';

/** Every spelling of a secret a careless store or log might hold: as is, base64, base64url, hex. */
function spellings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

function assertHoldsNone(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) {
    for (const spelling of spellings(secret)) assert.ok(!text.includes(spelling), `${where} holds ${secret} (as ${spelling})`);
  }
}

async function operatorAppWithLog(t: Parameters<typeof buildTestApp>[0], dialect: (typeof DIALECTS)[number]) {
  const log = capturedLog('trace');
  const app = await buildTestApp(t, { dialect, logger: log.logger, config: { adminToken: OPERATOR_TOKEN } });
  return { app, log };
}

const reveal = (app: TestApp, id: number) =>
  app.request('POST', `/admin/managed/credentials/${id}/reveal`, { token: OPERATOR_TOKEN });

const keyText = () => crypto.randomBytes(32).toString('base64');

for (const dialect of DIALECTS) {
  describe(`managed credential secrets [${dialect}]`, () => {
    test('no username or password in API answers, logs, the database or a snapshot: only sealed values', async (t) => {
      const { app, log } = await operatorAppWithLog(t, dialect);
      const secrets = Array.from({ length: 7 }, (_, i) => uniqueSecret(`s${i}`));
      const [user1, pass1, user2, pass2, refusedPass, refusedUpdate, refusedPut] = secrets as [string, ...string[]];
      const answers: string[] = [];
      const send = async (method: string, url: string, body?: unknown) => {
        const res = await app.request(method, url, { body });
        answers.push(JSON.stringify(res.body));
        return res;
      };

      const created = (await send('POST', '/v4/managed/credentials', { label: 'db', username: user1, password: pass1 })).body;
      assert.equal(
        (await send('POST', `/v4/managed/credentials/${created.id}/update`, { username: user2, password: pass2 })).status,
        200,
      );
      assert.equal((await send('POST', '/v4/managed/credentials', { label: 'x', password: refusedPass })).status, 400);
      const tooLong = { username: 'u'.repeat(5001), password: refusedUpdate };
      assert.equal((await send('POST', `/v4/managed/credentials/${created.id}/update`, tooLong)).status, 400);
      // A password is not taken by PUT: ignored, named (never its value) in the Warning header.
      const put = await send('PUT', `/v4/managed/credentials/${created.id}`, { password: refusedPut });
      assert.equal(put.status, 200);
      assert.equal(put.headers.warning, '299 - "ignored unknown fields: password"');
      await send('GET', '/v4/managed/credentials');
      await send('GET', `/v4/managed/credentials/${created.id}`);
      assertHoldsNone(answers.join('\n'), secrets, 'an API answer');

      const row = await app.runtime.ctx.db
        .selectFrom('managed_credentials')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      const keyId = app.runtime.ctx.secrets.keyId;
      for (const sealed of [row.username_sealed, row.password_sealed]) {
        assert.match(String(sealed), new RegExp(`^v1:${keyId}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{22}$`));
      }
      assertHoldsNone(JSON.stringify(row), secrets, 'the row');

      const snapshot = await snapshotOf(app);
      assert.ok(snapshot.includes(row.password_sealed), 'the snapshot carries the sealed password');
      assertHoldsNone(snapshot, secrets, 'the snapshot');
      if (dialect === 'sqlite') {
        for (const name of fs.readdirSync(app.dataDir).filter((n) => n.startsWith('cumulo.sqlite'))) {
          assertHoldsNone(fs.readFileSync(path.join(app.dataDir, name)).toString('latin1'), secrets, name);
        }
      }

      const revealed = await reveal(app, created.id);
      assert.equal(revealed.status, 200, JSON.stringify(revealed.body));
      assert.deepEqual([revealed.body.username, revealed.body.password], [user2, pass2]);
      const logged = log.lines.map((l) => JSON.parse(l));
      const line = logged.find((l) => l.msg === 'managed credential revealed to the operator');
      assert.ok(line, 'the reveal is logged');
      assert.equal(line.credential_id, created.id);
      assert.equal(line.at, revealed.body.last_decrypted);
      assert.ok(
        logged.some((l) => l.msg === 'request completed'),
        'trace logging was on',
      );
      assertHoldsNone(log.lines.join('\n'), secrets, 'the log');
    });

    test('the operator reveals through the admin API: last_decrypted set, the only change; 404 for no such credential', async (t) => {
      const { app } = await operatorAppWithLog(t, dialect);
      const cred = await createCredential(app, { username: undefined, password: 'only-a-password' });
      const other = await newAccount(app);
      const theirs = await createCredential(app, { username: 'them', password: 'their-pass' }, other.token);

      const first = await ok(reveal(app, cred.id));
      assert.deepEqual(first, {
        id: cred.id,
        account_id: first.account_id,
        label: cred.label,
        username: null,
        password: 'only-a-password',
        last_decrypted: first.last_decrypted,
      });
      assert.match(first.last_decrypted, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      const view = await ok(app.request('GET', `/v4/managed/credentials/${cred.id}`));
      assert.deepEqual(view, { ...cred, last_decrypted: first.last_decrypted });
      assert.equal(
        (await ok(app.request('GET', `/v4/managed/credentials/${theirs.id}`, { token: other.token }))).last_decrypted,
        null,
      );

      const again = await ok(reveal(app, theirs.id));
      assert.equal(again.account_id, other.accountId);
      assert.deepEqual([again.username, again.password], ['them', 'their-pass']);
      assert.equal(
        (await ok(app.request('GET', `/v4/managed/credentials/${theirs.id}`, { token: other.token }))).last_decrypted,
        again.last_decrypted,
      );
      assert.equal((await reveal(app, 999999)).status, 404);
      assert.equal(
        (await app.request('POST', `/admin/managed/credentials/${cred.id}/reveal`)).status,
        401,
        'a user token is not the operator',
      );
    });

    test('a sealed value opens only as the field and account it was sealed for', async (t) => {
      const { app } = await operatorAppWithLog(t, dialect);
      const mine = await createCredential(app, { username: 'mine', password: 'my-pass' });
      const other = await newAccount(app);
      const theirs = await createCredential(app, { username: 'them', password: 'their-pass' }, other.token);
      const { db } = app.runtime.ctx;
      const source = await db.selectFrom('managed_credentials').selectAll().where('id', '=', mine.id).executeTakeFirstOrThrow();
      // Their password column now holds my sealed password, and my username column my sealed password.
      await db
        .updateTable('managed_credentials')
        .set({ password_sealed: source.password_sealed })
        .where('id', '=', theirs.id)
        .execute();
      await db
        .updateTable('managed_credentials')
        .set({ username_sealed: source.password_sealed })
        .where('id', '=', mine.id)
        .execute();
      for (const id of [theirs.id, mine.id]) {
        const res = await reveal(app, id);
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.match(res.body.errors[0].reason, /cannot be opened/);
        assert.ok(!JSON.stringify(res.body).includes('my-pass'));
      }
      assert.equal(
        (await ok(app.request('GET', `/v4/managed/credentials/${mine.id}`))).last_decrypted,
        null,
        'a failed reveal sets nothing',
      );
    });

    test('cumulo admin managed reveal-credential: the same reveal as a process; a log line without the secret', async (t) => {
      const { app } = await operatorAppWithLog(t, dialect);
      const password = uniqueSecret('cli-pass');
      const cred = await createCredential(app, { username: 'cli-user', password });
      const res = await cumulo(app, ['admin', 'managed', 'reveal-credential', String(cred.id)], { env: { LOG_LEVEL: 'info' } });
      assert.equal(res.code, 0, res.stderr);
      const printed = JSON.parse(res.stdout);
      assert.deepEqual([printed.id, printed.username, printed.password], [cred.id, 'cli-user', password]);
      assert.equal((await ok(app.request('GET', `/v4/managed/credentials/${cred.id}`))).last_decrypted, printed.last_decrypted);
      const line = res.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'managed credential revealed to the operator');
      assert.equal(line?.credential_id, cred.id);
      assertHoldsNone(res.stderr, [password, 'cli-user'], 'the command log');

      const missing = await cumulo(app, ['admin', 'managed', 'reveal-credential', '999999']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /not found/i);
      const bad = await cumulo(app, ['admin', 'managed', 'reveal-credential', 'abc']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /credential id/);
    });

    test('the key: a file made on first start in secrets/, kept across starts; or CUMULO_SECRET_KEY, then no file', async (t) => {
      const first = await buildTestApp(t, { dialect });
      const file = path.join(first.dataDir, 'secrets', 'secret.key');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'made at start, for the owner only');
      const bytes = Buffer.from(fs.readFileSync(file, 'utf8'), 'base64');
      assert.equal(bytes.length, 32);
      assert.equal(first.runtime.ctx.secrets.keyId, new SecretBox([bytes]).keyId);
      const again = await buildTestApp(t, { dialect, config: { dataDir: first.dataDir } });
      assert.equal(again.runtime.ctx.secrets.keyId, first.runtime.ctx.secrets.keyId, 'the same key on the next start');

      const key = keyText();
      const given = await buildTestApp(t, { dialect, config: { secretKeys: [key] } });
      assert.ok(!fs.existsSync(path.join(given.dataDir, 'secrets', 'secret.key')));
      const cred = await createCredential(given);
      const row = await given.runtime.ctx.db
        .selectFrom('managed_credentials')
        .selectAll()
        .where('id', '=', cred.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.password_sealed.startsWith(`v1:${new SecretBox([Buffer.from(key, 'base64')]).keyId}:`));
    });

    test('another key cannot open what the first sealed; listing the old key after a new one can, and new values take the new key', async (t) => {
      const oldKey = keyText();
      const app = await buildTestApp(t, { dialect, config: { secretKeys: [oldKey], adminToken: OPERATOR_TOKEN } });
      const cred = await createCredential(app, { username: 'rot-user', password: 'rot-pass' });
      const newKey = keyText();
      const oldId = app.runtime.ctx.secrets.keyId;

      const wrong = await cumulo(app, ['admin', 'managed', 'reveal-credential', String(cred.id)], {
        env: { CUMULO_SECRET_KEY: newKey },
      });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, new RegExp(`sealed under key ${oldId}, which this installation does not have`));
      assert.ok(!wrong.stderr.includes('rot-pass'));
      assert.equal((await ok(app.request('GET', `/v4/managed/credentials/${cred.id}`))).last_decrypted, null);

      const rotated = await cumulo(app, ['admin', 'managed', 'reveal-credential', String(cred.id)], {
        env: { CUMULO_SECRET_KEY: `${newKey}, ${Buffer.from(oldKey, 'base64').toString('hex')}` },
      });
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.deepEqual([JSON.parse(rotated.stdout).username, JSON.parse(rotated.stdout).password], ['rot-user', 'rot-pass']);

      const newBox = new SecretBox([Buffer.from(newKey, 'base64'), Buffer.from(oldKey, 'base64')]);
      const sealed = newBox.seal('fresh', 'a purpose');
      assert.ok(sealed.startsWith(`v1:${newBox.keyId}:`) && newBox.keyId !== oldId);
      assert.equal(newBox.open(sealed, 'a purpose'), 'fresh');
    });

    test('a CUMULO_SECRET_KEY that is not a 256-bit key stops the start, and the message does not repeat it', () => {
      for (const bad of ['short', crypto.randomBytes(16).toString('base64'), `${keyText()},${'x'.repeat(44)}`]) {
        assert.throws(
          () => loadConfig({ CUMULO_SECRET_KEY: bad }),
          (err: Error) =>
            err instanceof ConfigError &&
            /CUMULO_SECRET_KEY must hold 256-bit keys/.test(err.message) &&
            !err.message.includes(bad),
        );
      }
      const hex = crypto.randomBytes(32).toString('hex');
      assert.deepEqual(loadConfig({ CUMULO_SECRET_KEY: ` ${hex} ` }).secretKeys, [hex]);
    });
  });
}

describe('sealed values', () => {
  const box = new SecretBox([crypto.randomBytes(32)]);
  test('AES-256-GCM with a fresh IV each time: the same secret seals differently, and opens', () => {
    const a = box.seal('same secret', 'p');
    const b = box.seal('same secret', 'p');
    assert.notEqual(a, b);
    assert.equal(box.open(a, 'p'), 'same secret');
    assert.equal(box.open(box.seal('', 'p'), 'p'), '', 'an empty value too');
    assert.equal(box.open(box.seal('ünïcødé ✓', 'p'), 'p'), 'ünïcødé ✓');
  });

  test('any change to a sealed value, or another purpose, and it does not open', () => {
    const sealed = box.seal('the secret', 'purpose-a');
    const parts = sealed.split(':');
    const flip = (text: string) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    const changed = [2, 3, 4].map((i) => parts.map((p, j) => (j === i ? flip(p) : p)).join(':'));
    for (const text of [...changed, `v2:${parts.slice(1).join(':')}`, parts.slice(0, 4).join(':'), 'plain text']) {
      assert.throws(() => box.open(text, 'purpose-a'), /not a sealed value|does not open|does not have/, text);
    }
    assert.throws(() => box.open(sealed, 'purpose-b'), /does not open/);
    assert.throws(
      () => new SecretBox([crypto.randomBytes(32)]).open(sealed, 'purpose-a'),
      /which this installation does not have/,
    );
  });
});
