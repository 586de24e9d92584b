import { loadConfig } from '../config.ts';
import { ownBaseUrls } from '../http/public-url.ts';
import type { Command } from './main.ts';
import { TerminalFilter } from './terminal-filter.ts';
import { text, type Values, wholeNumber } from './tool.ts';

/** Where the command finds its personal access token (or OAuth access token): never on the command line. */
export const TOKEN_VARIABLE = 'CUMULO_TOKEN';
/** Ctrl-], as in telnet. */
const DETACH = 0x1d;

/** The server to ask: --url, else where this environment's `cumulo serve` listens (CUMULO_PUBLIC_URL, else HOST and PORT). */
function serverUrl(values: Values): string {
  const given = text(values, 'url');
  if (given) return given.replace(/\/+$/, '');
  const config = loadConfig();
  return ownBaseUrls({ publicUrl: config.publicUrl, host: config.host }, config.port)[0] as string;
}

/** The reasons of an error envelope, as the other commands print them. */
function reasonsOf(body: unknown): string | null {
  const errors = (body as { errors?: { field?: string; reason?: string }[] } | null)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return null;
  return errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : String(e.reason))).join('; ');
}

async function consoleTicketUrl(server: string, nodeId: number, token: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${server}/v4/node/instances/${nodeId}/console`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
  } catch (err) {
    throw new Error(`cannot reach ${server}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new Error(reasonsOf(body) ?? `${res.status} ${res.statusText}`);
  return (body as { url: string }).url;
}

/** Resets colours and attributes the guest left set, so that they do not run on into the shell. */
const RESET_ATTRIBUTES = '\x1b[0m';

/**
 * Joins this terminal to the console: raw mode when stdin is a terminal, so that every key (Ctrl-C
 * included) goes to the node; Ctrl-] detaches. The end of stdin does not: output goes on until the
 * console closes. What the guest prints goes through a TerminalFilter unless `raw`: a guest must
 * not set the user's window title or clipboard. Resolves with the exit code.
 */
function attach(url: string, nodeId: number, raw: boolean): Promise<number> {
  const { stdin, stdout, stderr } = process;
  const filter = raw ? null : new TerminalFilter();
  return new Promise((resolve) => {
    const socket = new WebSocket(url, ['cumulo-console']);
    socket.binaryType = 'arraybuffer';
    let opened = false;
    let detached = false;
    const type = (chunk: Buffer) => {
      const at = chunk.indexOf(DETACH);
      if (at === -1) return socket.send(chunk);
      if (at > 0) socket.send(chunk.subarray(0, at));
      detached = true;
      socket.close(1000, 'detached');
    };
    socket.onopen = () => {
      opened = true;
      stderr.write(`Connected to the console of node ${nodeId}. Ctrl-] detaches.\n`);
      if (stdin.isTTY) stdin.setRawMode(true);
      stdin.on('data', type);
      stdin.resume();
    };
    socket.onmessage = (event: MessageEvent) => {
      const output = typeof event.data === 'string' ? Buffer.from(event.data) : Buffer.from(event.data as ArrayBuffer);
      stdout.write(filter ? filter.write(output) : output);
    };
    socket.onclose = (event: CloseEvent) => {
      stdin.off('data', type);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      if (!opened) {
        stderr.write('cumulo: the server refused the console connection\n');
        return resolve(1);
      }
      if (filter && stdout.isTTY) stdout.write(RESET_ATTRIBUTES);
      stderr.write(detached ? '\nDetached.\n' : `\nConsole closed${event.reason ? `: ${event.reason}` : ''}.\n`);
      resolve(detached || event.code === 1000 ? 0 : 1);
    };
  });
}

export const nodeConsole: Command = {
  summary: "attach this terminal to a node's serial console (Ctrl-] detaches)",
  usage: 'console <node-id> [--url <server>] [--raw]',
  options: {
    url: { type: 'string', description: 'the server (default: CUMULO_PUBLIC_URL, else http://HOST:PORT)' },
    raw: {
      type: 'boolean',
      description:
        'pass everything the guest prints to this terminal; without it, control sequences other than colours, cursor movement and erasing are dropped (window titles, clipboard writes, ...)',
    },
  },
  positionals: ['node'],
  async run(values) {
    const nodeId = wholeNumber(values, 'node', 'a node id');
    const token = process.env[TOKEN_VARIABLE];
    if (!token) {
      process.stderr.write(`cumulo: set ${TOKEN_VARIABLE} to a token with nodes:read_write\n`);
      return 2;
    }
    return attach(await consoleTicketUrl(serverUrl(values), nodeId, token), nodeId, values.raw === true);
  },
};
