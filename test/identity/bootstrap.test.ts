import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, tempDir } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { CONSOLE, form, pkcePair, postSignIn } from '../oauth/helpers.ts';
import { ok, operatorApp } from '../operator/helpers.ts';

/** Signs in as admin with `password` on a real server, as a browser and the console would, and reads the profile. */
async function signInOverHttp(baseUrl: string, password: string): Promise<string> {
  const { verifier, challenge } = pkcePair();
  const redirectUri = `${baseUrl}/`;
  const params = {
    client_id: CONSOLE.clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const page = await fetch(`${baseUrl}/oauth/authorize?${form(params)}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<form method="post" action="\/oauth\/authorize">/);
  const signedIn = await fetch(`${baseUrl}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ ...params, username: 'admin', password, decision: 'allow' }),
    redirect: 'manual',
  });
  assert.equal(signedIn.status, 302, await signedIn.text());
  const back = new URL(signedIn.headers.get('location') ?? '');
  assert.equal(`${back.origin}${back.pathname}`, redirectUri);
  const tokens = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      client_id: CONSOLE.clientId,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
  });
  assert.equal(tokens.status, 200);
  const { access_token } = (await tokens.json()) as { access_token: string };
  const profile = await fetch(`${baseUrl}/v4/profile`, { headers: { authorization: `Bearer ${access_token}` } });
  return ((await profile.json()) as { username: string }).username;
}

describe('first start', () => {
  test("prints admin's password once, next to its token; it signs in through OAuth; a restart prints neither", async (t) => {
    const dataDir = tempDir(t);
    const env = { CUMULO_DATA_DIR: dataDir, CUMULO_BOOTSTRAP_TOKEN: '', CUMULO_BOOTSTRAP_PASSWORD: '', DATABASE_URL: '' };
    const first = await startServerProcess(env);
    t.after(() => first.child.kill('SIGKILL'));
    await new Promise((r) => setTimeout(r, 200));
    const out = first.output();
    const password = /as "admin" with this password, shown only this once:\n\n {2}(\S+)\n/.exec(out)?.[1];
    assert.ok(password, out);
    assert.match(password, /^[0-9a-f]{24}$/);
    assert.match(out, new RegExp(`Sign in to the console at ${first.baseUrl}/`));
    const token = /\(scope \*\), shown only this once:\n\n {2}([0-9a-f]{64})\n/.exec(out)?.[1];
    assert.ok(token, out);
    assert.equal(await signInOverHttp(first.baseUrl, password), 'admin');
    first.child.kill('SIGTERM');
    await first.exited;

    const second = await startServerProcess(env);
    t.after(() => second.child.kill('SIGKILL'));
    await new Promise((r) => setTimeout(r, 200));
    assert.doesNotMatch(second.output(), /shown only this once/);
    assert.equal(await signInOverHttp(second.baseUrl, password), 'admin', 'the password stays');
    second.child.kill('SIGTERM');
    await second.exited;

    const fixed = await startServerProcess({ ...env, CUMULO_BOOTSTRAP_PASSWORD: 'chosen by the operator' });
    t.after(() => fixed.child.kill('SIGKILL'));
    assert.equal(await signInOverHttp(fixed.baseUrl, 'chosen by the operator'), 'admin', 'CUMULO_BOOTSTRAP_PASSWORD replaces it');
    assert.ok(
      fixed
        .output()
        .includes(`\nWeb console: ${fixed.baseUrl}/ (sign in as "admin" with the password in CUMULO_BOOTSTRAP_PASSWORD)\n`),
      fixed.output(),
    );
    fixed.child.kill('SIGTERM');
    await fixed.exited;
  });
});

for (const dialect of DIALECTS) {
  describe(`bootstrap password [${dialect}]`, () => {
    test('without a fixed token a password is made up; a fixed token alone gives none; CUMULO_BOOTSTRAP_PASSWORD sets it', async (t) => {
      const fresh = await buildTestApp(t, { dialect, config: { bootstrapToken: undefined } });
      const made = fresh.runtime.bootstrap;
      assert.equal(made?.kind, 'created');
      const password = made?.kind === 'created' ? made.password : undefined;
      assert.match(password ?? '', /^[0-9a-f]{24}$/);
      assert.equal(
        redirectStatus(await postSignIn(fresh, { username: 'admin', password: password ?? '', challenge: pkcePair().challenge })),
        302,
      );

      const ci = await buildTestApp(t, { dialect });
      assert.equal(ci.runtime.bootstrap?.kind === 'created' ? ci.runtime.bootstrap.password : 'none', undefined);
      const row = await ci.runtime.ctx.db
        .selectFrom('users')
        .select('password_hash')
        .where('username', '=', 'admin')
        .executeTakeFirstOrThrow();
      assert.equal(row.password_hash, null, 'no password nobody was shown');

      const chosen = await buildTestApp(t, { dialect, config: { bootstrapPassword: 'a chosen password' } });
      assert.equal(
        chosen.runtime.bootstrap?.kind === 'created' ? chosen.runtime.bootstrap.password : 'none',
        undefined,
        'not printed: the operator knows it',
      );
      const signIn = await postSignIn(chosen, {
        username: 'admin',
        password: 'a chosen password',
        challenge: pkcePair().challenge,
      });
      assert.equal(redirectStatus(signIn), 302);
    });

    test('a reset without fixed token and password answers the new password, as a first start prints it', async (t) => {
      const app = await operatorApp(t, dialect, { bootstrapToken: undefined });
      const reset = await ok(app.admin('POST', '/admin/reset'));
      assert.match(reset.bootstrap_password, /^[0-9a-f]{24}$/);
      const signIn = await postSignIn(app, {
        username: 'admin',
        password: reset.bootstrap_password,
        challenge: pkcePair().challenge,
      });
      assert.equal(redirectStatus(signIn), 302);
    });

    test('a CUMULO_BOOTSTRAP_PASSWORD the password rules refuse stops the start, naming it and not echoing it', async (t) => {
      for (const bad of ['short', '          ']) {
        await assert.rejects(buildTestApp(t, { dialect, config: { bootstrapPassword: bad } }), (err: Error) => {
          assert.match(err.message, /CUMULO_BOOTSTRAP_PASSWORD/);
          assert.ok(!err.message.includes(bad.trim() || 'xx'), err.message);
          return true;
        });
      }
    });
  });
}

function redirectStatus(reply: { status: number; headers: Record<string, unknown> }): number {
  if (reply.status === 302) assert.match(String(reply.headers.location), /[?&]code=/);
  return reply.status;
}
