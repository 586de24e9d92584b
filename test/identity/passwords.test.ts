import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import type { Context } from '../../src/context.ts';
import { BOOTSTRAP_USERNAME } from '../../src/domain/account/bootstrap.ts';
import { userWithPassword } from '../../src/domain/account/user.service.ts';
import { startRuntime } from '../../src/runtime.ts';
import { hashPassword, verifyPassword } from '../../src/secrets/password-hash.ts';
import { uniqueName } from '../helpers/accounts.ts';
import { DIALECTS, tempDir } from '../helpers/app.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';
import { operatorApp } from '../operator/helpers.ts';

/** Runs `cumulo <args>` on a SQLite database in `dataDir`, with `input` on its stdin. */
function cumulo(dataDir: string, input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CUMULO_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CUMULO_BIN, ...args], { env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

async function openTool(t: { after(fn: () => Promise<void>): void }, dataDir: string): Promise<Context> {
  const runtime = await startRuntime(loadConfig({}, { dataDir, logLevel: 'silent' }), {
    role: 'tool',
    logger: pino({ level: 'silent' }),
  });
  t.after(() => runtime.close());
  return runtime.ctx;
}

describe('passwords', () => {
  test('scrypt hashes: salted, self-describing, checked in constant time; no hash never matches', async () => {
    const cost = loadConfig({}).passwordHashCost;
    assert.equal(cost, 15, 'N = 2^15 unless the operator says otherwise');
    const a = await hashPassword('correct horse battery', cost);
    const b = await hashPassword('correct horse battery', cost);
    assert.match(a, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    assert.notEqual(a, b, 'a salt of its own');
    assert.equal(await verifyPassword('correct horse battery', a, cost), true);
    assert.equal(await verifyPassword('correct horse batterY', a, cost), false);
    assert.equal(await verifyPassword('', a, cost), false);
    assert.equal(await verifyPassword('correct horse battery', null, cost), false);
    assert.equal(await verifyPassword('correct horse battery', 'not a hash', cost), false);
  });

  test('CUMULO_PASSWORD_HASH_COST: new hashes at that cost; hashes made at another are checked as they were made', async () => {
    assert.equal(loadConfig({ CUMULO_PASSWORD_HASH_COST: '12' }).passwordHashCost, 12);
    for (const bad of ['9', '21', '12.5', 'cheap']) {
      assert.throws(() => loadConfig({ CUMULO_PASSWORD_HASH_COST: bad }), /CUMULO_PASSWORD_HASH_COST/, bad);
    }
    const cheap = await hashPassword('correct horse battery', 10);
    assert.match(cheap, /^scrypt\$1024\$8\$1\$/);
    const dear = await hashPassword('correct horse battery', 15);
    for (const current of [10, 15]) {
      assert.equal(await verifyPassword('correct horse battery', cheap, current), true);
      assert.equal(await verifyPassword('correct horse battery', dear, current), true);
      assert.equal(await verifyPassword('correct horse batterX', dear, current), false);
    }
    assert.equal(await verifyPassword('x', 'scrypt$1048577$8$1$AAAA$AAAA', 10), false, 'an N that is no power of two');
    assert.equal(await verifyPassword('x', `scrypt$${2 ** 22}$8$1$AAAA$AAAA`, 10), false, 'an N past the bound');
  });

  test('cumulo user create --password-stdin and user set-password; a refused password changes nothing', async (t) => {
    const dir = tempDir(t);
    const owner = uniqueName('owner');
    const made = await cumulo(dir, '', 'account', 'create', '--email', 'ops@example.com', '--username', owner);
    assert.equal(made.code, 0, made.stderr);
    const accountId = /account_id=(\d+)/.exec(made.stdout)?.[1] ?? '';
    const ada = uniqueName('ada');
    const created = await cumulo(
      dir,
      'first pass phrase\nignored second line\n',
      'user',
      'create',
      '--account',
      accountId,
      '--username',
      ada,
      '--email',
      'ada@example.com',
      '--password-stdin',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, `username=${ada}\n`);

    const ctx = await openTool(t, dir);
    assert.equal((await userWithPassword(ctx, ada, 'first pass phrase'))?.username, ada);
    assert.equal(await userWithPassword(ctx, ada, 'ignored second line'), null);
    assert.equal(await userWithPassword(ctx, owner, 'first pass phrase'), null, 'a user with no password signs in with none');
    assert.equal(await userWithPassword(ctx, 'nobody-at-all', 'first pass phrase'), null);

    const changed = await cumulo(dir, 'second pass phrase', 'user', 'set-password', '--username', ada);
    assert.equal(changed.code, 0, changed.stderr);
    assert.equal((await userWithPassword(ctx, ada, 'second pass phrase'))?.username, ada);
    assert.equal(await userWithPassword(ctx, ada, 'first pass phrase'), null, 'the old password stops working');

    for (const [input, args] of [
      ['short', ['user', 'set-password', '--username', ada]],
      ['         ', ['user', 'set-password', '--username', ada]],
      ['long enough password', ['user', 'set-password', '--username', 'nobody-at-all']],
      ['long enough password', ['user', 'set-password']],
    ] as const) {
      const refused = await cumulo(dir, input, ...args);
      assert.notEqual(refused.code, 0, args.join(' '));
      assert.equal(refused.stdout, '');
      assert.ok(refused.stderr.length > 0);
    }
    assert.equal((await userWithPassword(ctx, ada, 'second pass phrase'))?.username, ada, 'still the last accepted one');
    const row = await ctx.db.selectFrom('users').select('password_hash').where('username', '=', ada).executeTakeFirstOrThrow();
    assert.ok(!row.password_hash?.includes('second pass phrase'), 'only the hash is kept');
  });
});

for (const dialect of DIALECTS) {
  describe(`PUT /admin/users/{username}/password [${dialect}]`, () => {
    test('sets the password the user then signs in with; a refused one changes nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const { ctx } = app.runtime;
      const set = await app.admin('PUT', `/admin/users/${BOOTSTRAP_USERNAME}/password`, { body: { password: 'console pass 1' } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body, { username: BOOTSTRAP_USERNAME });
      assert.equal((await userWithPassword(ctx, BOOTSTRAP_USERNAME, 'console pass 1'))?.username, BOOTSTRAP_USERNAME);

      const short = await app.admin('PUT', `/admin/users/${BOOTSTRAP_USERNAME}/password`, { body: { password: 'short' } });
      assert.equal(short.status, 400);
      assert.equal(short.body.errors[0].field, 'password');
      const nobody = await app.admin('PUT', '/admin/users/nobody-at-all/password', { body: { password: 'console pass 2' } });
      assert.equal(nobody.status, 404);
      const noToken = await app.request('PUT', `/admin/users/${BOOTSTRAP_USERNAME}/password`, {
        token: null,
        body: { password: 'console pass 3' },
      });
      assert.equal(noToken.status, 401);
      assert.equal((await userWithPassword(ctx, BOOTSTRAP_USERNAME, 'console pass 1'))?.username, BOOTSTRAP_USERNAME);
    });
  });
}
