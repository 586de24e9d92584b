import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { runAccountCreate, runTokenCreate, runUserCreate, usernameFromEmail } from '../../src/cli/identity-commands.ts';
import { loadConfig } from '../../src/config.ts';
import type { Context } from '../../src/context.ts';
import { authenticateToken } from '../../src/domain/profile/token.service.ts';
import { startRuntime } from '../../src/runtime.ts';
import { uniqueName } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, tempDir } from '../helpers/app.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';

const run = promisify(execFile);

/** Runs `cumulo <args>` on a SQLite database in `dataDir`; never throws, returns what it printed. */
async function cumulo(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CUMULO_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run(process.execPath, [CUMULO_BIN, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A context on the database the commands wrote to. */
async function openTool(t: { after(fn: () => Promise<void>): void }, dataDir: string): Promise<Context> {
  const config = loadConfig({}, { dataDir, logLevel: 'silent' });
  const runtime = await startRuntime(config, { role: 'tool', logger: pino({ level: 'silent' }) });
  t.after(() => runtime.close());
  assert.equal(runtime.app, null);
  assert.equal(runtime.worker, null);
  return runtime.ctx;
}

function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split('=') as [string, string]),
  );
}

describe('cumulo account/user/token create [sqlite, as processes]', () => {
  test('creates an account, a user and a token that works, with the same events as the API', async (t) => {
    const dir = tempDir(t);
    const owner = uniqueName('owner');
    const made = await cumulo(dir, 'account', 'create', '--email', 'ops@example.com', '--username', owner);
    assert.equal(made.code, 0, made.stderr);
    const account = fields(made.stdout);
    assert.equal(account.username, owner);
    assert.match(account.account_id ?? '', /^\d+$/);

    const bob = uniqueName('bob');
    const user = await cumulo(
      dir,
      'user',
      'create',
      '--account',
      account.account_id ?? '',
      '--username',
      bob,
      '--email',
      'b@example.com',
      '--restricted',
    );
    assert.equal(user.code, 0, user.stderr);
    assert.equal(fields(user.stdout).username, bob);

    const token = await cumulo(dir, 'token', 'create', '--username', bob, '--scopes', 'nodes:read_only', '--label', 'ci');
    assert.equal(token.code, 0, token.stderr);
    assert.match(token.stdout, /^[0-9a-f]{64}\n$/, 'stdout holds only the token');

    const ctx = await openTool(t, dir);
    const principal = await authenticateToken(ctx, token.stdout.trim());
    assert.equal(principal?.username, bob);
    assert.equal(principal?.restricted, true);
    assert.equal(principal?.accountId, Number(account.account_id));
    const events = await ctx.db.selectFrom('events').selectAll().orderBy('id').execute();
    assert.deepEqual(
      events.map((e) => [e.action, e.entity_label, e.username]),
      [
        ['user_create', owner, 'system'],
        ['user_create', bob, 'system'],
        ['token_create', 'ci', 'system'],
      ],
    );
    const row = await ctx.db
      .selectFrom('tokens')
      .select(['scopes', 'label'])
      .where('user_id', '=', principal?.userId ?? 0)
      .execute();
    assert.deepEqual(
      row.map((r) => ({ ...r })),
      [{ scopes: 'nodes:read_only', label: 'ci' }],
    );
  });

  test('refuses bad input with a reason on stderr and a failing exit code', async (t) => {
    const dir = tempDir(t);
    const cases: string[][] = [
      ['account', 'create'],
      ['account', 'create', '--email', 'nope'],
      ['user', 'create', '--account', '1', '--username', 'x', '--email', 'x@example.com'],
      ['user', 'create', '--account', 'abc', '--username', 'valid_one', '--email', 'x@example.com'],
      ['user', 'create', '--account', '424242', '--username', 'valid_one', '--email', 'x@example.com'],
      ['token', 'create', '--username', 'nobody-at-all'],
      ['token', 'create'],
      ['account', 'create', '--email', 'a@example.com', '--bogus'],
    ];
    for (const args of cases) {
      const res = await cumulo(dir, ...args);
      assert.notEqual(res.code, 0, args.join(' '));
      assert.equal(res.stdout, '', args.join(' '));
      assert.ok(res.stderr.length > 0, args.join(' '));
    }
  });

  test('each command explains itself with --help', async (t) => {
    const dir = tempDir(t);
    for (const [command, option] of [
      ['account create', '--email'],
      ['user create', '--restricted'],
      ['token create', '--expiry'],
    ] as const) {
      const res = await cumulo(dir, ...command.split(' '), '--help');
      assert.equal(res.code, 0);
      assert.match(res.stdout, new RegExp(`Usage: cumulo ${command}`));
      assert.ok(res.stdout.includes(option), `${command} --help names ${option}`);
    }
  });
});

test('a username comes from the email address when none is given', () => {
  assert.equal(usernameFromEmail('Jane.Doe+work@example.com'), 'Jane-Doe-work');
  assert.equal(usernameFromEmail('__a__b__@example.com'), 'a-b');
  assert.equal(usernameFromEmail('x@example.com'), 'user-x');
  assert.equal(usernameFromEmail(`${'y'.repeat(40)}@example.com`), 'y'.repeat(32));
});

for (const dialect of DIALECTS) {
  describe(`identity commands on the domain services [${dialect}]`, () => {
    test('account, user and token commands', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const owner = uniqueName('owner');
      const account = fields(await runAccountCreate(ctx, { email: `${owner}@example.com` }));
      assert.equal(account.username, owner);
      const user = uniqueName('dev');
      assert.equal(
        await runUserCreate(ctx, { account: account.account_id, username: user, email: 'd@example.com', restricted: false }),
        `username=${user}\n`,
      );
      const expiry = new Date(ctx.clock.nowMs() + 3_600_000).toISOString();
      const value = (await runTokenCreate(ctx, { username: user, expiry })).trim();
      const profile = await app.request('GET', '/v4/profile', { token: value });
      assert.equal(profile.status, 200);
      assert.equal(profile.body.username, user);
      const tokens = await app.request('GET', '/v4/profile/tokens', { token: value });
      assert.equal(tokens.body.data[0].scopes, '*');
      assert.equal(tokens.body.data[0].expiry, expiry.slice(0, 19));
      const jobs = await ctx.db.selectFrom('jobs').select('kind').execute();
      assert.deepEqual(
        jobs.map((j) => j.kind),
        ['token.expire'],
      );

      await assert.rejects(
        runUserCreate(ctx, { account: account.account_id, username: user, email: 'd@example.com' }),
        /Username taken/,
      );
      await assert.rejects(runTokenCreate(ctx, { username: user, expiry: '2001-01-01T00:00:00' }), /future/);
      await assert.rejects(runTokenCreate(ctx, { username: user, scopes: 'nodes:everything' }), /Invalid scope/);
    });
  });
}
