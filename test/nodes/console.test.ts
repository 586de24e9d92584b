import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, type TestContext, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, type Dialect, type TestApp } from '../helpers/app.ts';
import { connectConsole } from '../helpers/console-client.ts';
import { ProcessMachines } from '../helpers/process-machines.ts';
import { rawExchange } from '../helpers/raw-http.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';
import { createEmptyNode } from './helpers.ts';

const SIMULATED = 'This server simulates nodes; there is no console (CUMULO_COMPUTE=qemu runs real ones)';
/** A machine whose console greets, then echoes what is typed. */
const ECHO_MACHINE = ['sh', '-c', 'echo "console of the test machine"; exec cat'];

interface ConsoleApp {
  app: TestApp;
  machines: ProcessMachines;
  /** Where the app listens, e.g. http://127.0.0.1:40123. */
  base: string;
}

async function consoleApp(t: TestContext, dialect: Dialect): Promise<ConsoleApp> {
  const machines = new ProcessMachines();
  t.after(() => machines.stopAll());
  const app = await buildTestApp(t, { dialect, compute: machines });
  const server = app.runtime.app;
  assert.ok(server);
  return { app, machines, base: await server.listen({ port: 0, host: '127.0.0.1' }) };
}

function askTicket(app: TestApp, nodeId: number, token?: string) {
  return app.request('POST', `/v4/node/instances/${nodeId}/console`, token ? { token } : {});
}

/** A ticket's WebSocket URL, asked for over HTTP: it names the server as the request reached it. */
async function ticketUrl(base: string, nodeId: number, token = ADMIN_TOKEN): Promise<string> {
  const res = await fetch(`${base}/v4/node/instances/${nodeId}/console`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as { url: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.ok(body.url.startsWith(`${base.replace(/^http/, 'ws')}/v4/`), body.url);
  return body.url;
}

/** A handshake written by hand, to see what a WebSocket client hides of a refusal: the status and the envelope. */
async function refusedHandshake(base: string, url: string, headers: Record<string, string> = {}) {
  const { pathname, search } = new URL(url, base);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  const [res, ...more] = await rawExchange(
    base,
    `GET ${pathname}${search} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra.join('')}\r\n`,
  );
  assert.ok(res);
  assert.equal(more.length, 0);
  return { status: res.status, body: JSON.parse(res.body) };
}

function machineOf(nodeId: number): string {
  return `node-${nodeId}`;
}

for (const dialect of DIALECTS) {
  describe(`node console tickets [${dialect}]`, () => {
    test('simulated nodes have no console: 400', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const res = await askTicket(app, node.id);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { errors: [{ reason: SIMULATED }] });
    });

    test('read_write on the node and a running machine: a single-use ticket for 30 seconds', async (t) => {
      const { app, machines } = await consoleApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const readOnly = await createEmptyNode(app);

      const stopped = await askTicket(app, node.id);
      assert.equal(stopped.status, 400);
      assert.match(stopped.body.errors[0].reason, /^The node is offline; it has a console only while its machine runs$/);

      machines.run(machineOf(node.id), ECHO_MACHINE);
      machines.run(machineOf(readOnly.id), ECHO_MACHINE);
      const before = app.runtime.ctx.clock.nowMs();
      const res = await askTicket(app, node.id);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ['expires', 'ticket', 'url']);
      assert.match(res.body.ticket, /^[0-9a-f]{64}$/);
      assert.equal(res.body.url, `ws://localhost:80/v4/node/instances/${node.id}/console/connect?ticket=${res.body.ticket}`);
      const expires = Date.parse(`${res.body.expires}Z`);
      assert.ok(expires >= Math.floor(before / 1000) * 1000 + 29_000 && expires <= before + 31_000, res.body.expires);
      const stored = await app.runtime.ctx.db.selectFrom('console_tickets').selectAll().execute();
      assert.equal(stored.length, 1);
      assert.notEqual(stored[0]?.ticket_hash, res.body.ticket, 'only its hash is kept');

      const other = await newAccount(app);
      assert.equal((await askTicket(app, node.id, other.token)).status, 404);
      const bob = await newUser(app, me.accountId, { restricted: true });
      assert.equal((await askTicket(app, node.id, bob.token)).status, 404, 'a restricted user without a grant');
      const grants = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: {
          node: [
            { id: node.id, permissions: 'read_write' },
            { id: readOnly.id, permissions: 'read_only' },
          ],
        },
      });
      assert.equal(grants.status, 200, JSON.stringify(grants.body));
      assert.equal((await askTicket(app, node.id, bob.token)).status, 200, 'a read_write grant');
      assert.equal((await askTicket(app, readOnly.id, bob.token)).status, 403, 'a read_only grant');
      const reader = await newUser(app, me.accountId, { scopes: 'nodes:read_only' });
      assert.equal((await askTicket(app, node.id, reader.token)).status, 403, 'a token without nodes:read_write');
    });

    test('a ticket opens its node once, within 30 seconds, as whoever asked for it', async (t) => {
      const { app, machines, base } = await consoleApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const second = await createEmptyNode(app);
      machines.run(machineOf(node.id), ECHO_MACHINE);
      machines.run(machineOf(second.id), ECHO_MACHINE);

      const url = await ticketUrl(base, node.id);
      const session = connectConsole(url);
      await session.opened;
      await session.waitFor('console of the test machine');
      session.socket.close();
      await session.closed;
      const used = await refusedHandshake(base, url);
      assert.equal(used.status, 401);
      assert.match(used.body.errors[0].reason, /^Unknown or already used console ticket; ask for another with POST/);

      const late = await ticketUrl(base, node.id);
      app.runtime.ctx.clock.advance(31_000);
      const expired = await refusedHandshake(base, late);
      assert.equal(expired.status, 401);
      assert.match(expired.body.errors[0].reason, /^The console ticket expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d;/);

      const elsewhere = new URL(await ticketUrl(base, node.id));
      elsewhere.pathname = `/v4/node/instances/${second.id}/console/connect`;
      const wrongNode = await refusedHandshake(base, elsewhere.href);
      assert.equal(wrongNode.status, 403);
      assert.deepEqual(wrongNode.body.errors, [{ reason: `The console ticket is for node ${node.id}, not ${second.id}` }]);

      const bob = await newUser(app, me.accountId, { restricted: true });
      const grant = (permissions: string) =>
        app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: { node: [{ id: node.id, permissions }] } });
      assert.equal((await grant('read_write')).status, 200);
      const bobs = await ticketUrl(base, node.id, bob.token);
      assert.equal((await grant('read_only')).status, 200);
      const revoked = await refusedHandshake(base, bobs);
      assert.equal(revoked.status, 403, "the grant as it is when the ticket is used: bob's is read_only now");

      const path = `/v4/node/instances/${node.id}/console/connect`;
      const none = await refusedHandshake(base, path);
      assert.equal(none.status, 400);
      assert.deepEqual(none.body.errors, [
        { field: 'ticket', reason: `Send a ticket from POST /v4/node/instances/${node.id}/console, or a token` },
      ]);
      const bogus = await refusedHandshake(base, path, { 'Sec-WebSocket-Protocol': 'cumulo-console, cumulo-token.not-a-token' });
      assert.equal(bogus.status, 401);
      assert.deepEqual(bogus.body.errors, [{ reason: 'Invalid Token' }]);
      const other = await newAccount(app);
      const theirs = await refusedHandshake(base, path, { Authorization: `Bearer ${other.token}` });
      assert.equal(theirs.status, 404);

      const plain = await app.request('GET', path);
      assert.equal(plain.status, 400);
      assert.match(plain.body.errors[0].reason, /takes a WebSocket handshake/);
    });
  });
}

describe('node console over a WebSocket', () => {
  test('replays the screen, carries typing both ways in binary frames, and closes when the machine stops', async (t) => {
    const { app, machines, base } = await consoleApp(t, 'sqlite');
    const node = await createEmptyNode(app);
    const machine = machines.run(machineOf(node.id), ECHO_MACHINE);

    const first = connectConsole(await ticketUrl(base, node.id));
    await first.opened;
    await first.waitFor('console of the test machine\n');
    first.socket.send(new TextEncoder().encode('typed in binary\n'));
    await first.waitFor('typed in binary\n');
    first.socket.send('typed as text\n');
    await first.waitFor('typed as text\n');
    assert.ok(first.allBinary(), 'the console comes in binary frames');

    const second = connectConsole(await ticketUrl(base, node.id));
    await second.opened;
    await second.waitFor('console of the test machine\ntyped in binary\ntyped as text\n');
    second.socket.send('seen by both\n');
    await Promise.all([first.waitFor('seen by both\n'), second.waitFor('seen by both\n')]);
    second.socket.close();
    await second.closed;

    machine.stop();
    const closed = await first.closed;
    assert.equal(closed.code, 1000);
    assert.equal(closed.reason, 'The machine stopped');
    assert.equal((await askTicket(app, node.id)).status, 400, 'no ticket once the machine has stopped');
  });

  test('a token as a subprotocol, answered with cumulo-console; a message over 64 KiB closes the socket', async (t) => {
    const { app, machines, base } = await consoleApp(t, 'sqlite');
    const node = await createEmptyNode(app);
    machines.run(machineOf(node.id), ECHO_MACHINE);
    const url = `${base.replace(/^http/, 'ws')}/v4/node/instances/${node.id}/console/connect`;

    const session = connectConsole(url, ['cumulo-console', `cumulo-token.${ADMIN_TOKEN}`]);
    await session.opened;
    assert.equal(session.socket.protocol, 'cumulo-console');
    await session.waitFor('console of the test machine');
    session.socket.send(Buffer.alloc(64 * 1024 + 1, 'x'));
    const closed = await session.closed;
    assert.equal(closed.code, 1009);
  });

  test('open consoles are closed with 1001 when the server shuts down; the machine runs on', async (t) => {
    const { app, machines, base } = await consoleApp(t, 'sqlite');
    const node = await createEmptyNode(app);
    machines.run(machineOf(node.id), ECHO_MACHINE);
    const session = connectConsole(await ticketUrl(base, node.id));
    await session.opened;
    await app.runtime.close();
    const closed = await session.closed;
    assert.equal(closed.code, 1001);
    assert.equal(closed.reason, 'The server is shutting down');
    assert.ok(machines.console(machineOf(node.id)));
  });

  test('npx cumulo console: the ticket with CUMULO_TOKEN, the console on stdout, the reason of a refusal', async (t) => {
    const { app, machines, base } = await consoleApp(t, 'sqlite');
    const node = await createEmptyNode(app);
    const idle = await createEmptyNode(app);
    machines.run(machineOf(node.id), ['sh', '-c', 'echo "console of the test machine"; read line; echo "got $line"']);

    const run = (nodeId: number, input: string, env: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CUMULO_BIN, 'console', String(nodeId), '--url', base], {
          env: { ...process.env, ...env },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => {
          stdout += c;
        });
        child.stderr.on('data', (c: Buffer) => {
          stderr += c;
        });
        child.stdin.end(input);
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      });

    const attached = await run(node.id, 'hello\n', { CUMULO_TOKEN: ADMIN_TOKEN });
    assert.equal(attached.code, 0, attached.stderr);
    assert.equal(attached.stdout, 'console of the test machine\ngot hello\n');
    assert.match(attached.stderr, new RegExp(`^Connected to the console of node ${node.id}\\. Ctrl-\\] detaches\\.`));
    assert.match(attached.stderr, /Console closed: The machine stopped\./);

    const refused = await run(idle.id, '', { CUMULO_TOKEN: ADMIN_TOKEN });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.equal(refused.stderr, 'cumulo: The node is offline; it has a console only while its machine runs\n');

    const anonymous = await run(node.id, '', { CUMULO_TOKEN: '' });
    assert.equal(anonymous.code, 2);
    assert.match(anonymous.stderr, /set CUMULO_TOKEN/);
  });

  test('npx cumulo console drops what would take over the terminal (a title, a clipboard write) and keeps colours; --raw passes all', async (t) => {
    const { app, machines, base } = await consoleApp(t, 'sqlite');
    const printed = '\x1b]0;owned\x07\x1b[31mred\x1b[0m \x1b]52;c;cm0gLXJmIH4=\x1b\\\x1b[2Aup\n';
    const run = async (args: string[]) => {
      const node = await createEmptyNode(app);
      // The guest prints, then ends once a line is typed (which closes its console).
      machines.run(machineOf(node.id), ['sh', '-c', 'printf "$0"; read line', printed]);
      const child = spawn(process.execPath, [CUMULO_BIN, 'console', String(node.id), '--url', base, ...args], {
        env: { ...process.env, CUMULO_TOKEN: ADMIN_TOKEN },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c;
      });
      child.stdin.end('done\n');
      assert.equal(await new Promise((resolve) => child.once('close', resolve)), 0);
      return stdout;
    };
    assert.equal(await run([]), '\x1b[31mred\x1b[0m \x1b[2Aup\n');
    assert.equal(await run(['--raw']), printed);
  });

  test('npx cumulo console detaches on Ctrl-], leaving the machine running', async (t) => {
    const { app, machines, base } = await consoleApp(t, 'sqlite');
    const node = await createEmptyNode(app);
    machines.run(machineOf(node.id), ECHO_MACHINE);
    const child = spawn(process.execPath, [CUMULO_BIN, 'console', String(node.id), '--url', base], {
      env: { ...process.env, CUMULO_TOKEN: ADMIN_TOKEN },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    child.stdin.write('before\n');
    // The detach key only once the echo is back: what comes after it in the same read is not sent.
    for (const deadline = Date.now() + 10_000; !stdout.includes('before\n'); ) {
      assert.ok(Date.now() < deadline, `no echo: ${stdout} ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.stdin.write('\x1dafter\n');
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /Detached\./);
    assert.equal(stdout, 'console of the test machine\nbefore\n');
    assert.ok(machines.console(machineOf(node.id)), 'the machine runs on');
  });
});
