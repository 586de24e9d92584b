import net from 'node:net';
import type { ProbeTarget } from './service-address.ts';

export interface ProbeResult {
  up: boolean;
  /** Why the service counts as down; null when up. */
  problem: string | null;
}

/** How much of a response body is searched for the expected text. */
const BODY_LIMIT_BYTES = 1024 * 1024;

const up: ProbeResult = { up: true, problem: null };
const down = (problem: string): ProbeResult => ({ up: false, problem });

function describe(err: unknown, timeoutSec: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer within ${timeoutSec} s`;
  }
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = (cause as { code?: unknown } | null)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Reads the body, up to the limit, as text, giving up with the request's signal. */
async function readSome(response: Response): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
    if (bytes >= BODY_LIMIT_BYTES) break;
  }
  return text + decoder.decode();
}

/**
 * A url service is up when a GET answers 2xx or 3xx (redirects are not followed) within the timeout,
 * and, if `body` is set, the response body (its first megabyte) holds it.
 */
async function probeUrl(url: string, timeoutSec: number, body: string | null): Promise<ProbeResult> {
  const signal = AbortSignal.timeout(timeoutSec * 1000);
  try {
    const response = await fetch(url, { redirect: 'manual', signal, headers: { 'user-agent': 'cumulo-managed-probe' } });
    if (response.status < 200 || response.status >= 400) {
      await response.body?.cancel();
      return down(`HTTP ${response.status}`);
    }
    if (body === null || body === '') {
      await response.body?.cancel();
      return up;
    }
    const text = await readSome(response);
    return text.includes(body) ? up : down(`the response does not contain "${body}"`);
  } catch (err) {
    return down(describe(err, timeoutSec));
  }
}

/** A tcp service is up when a connection opens within the timeout; it is closed at once. */
function probeTcp(host: string, port: number, timeoutSec: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (result: ProbeResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutSec * 1000, () => done(down(`no connection within ${timeoutSec} s`)));
    socket.once('connect', () => done(up));
    socket.once('error', (err) => done(down(describe(err, timeoutSec))));
  });
}

/** Probes a service once, for real. Never throws: a failure to reach it is a result. */
export function probe(target: ProbeTarget, timeoutSec: number, body: string | null): Promise<ProbeResult> {
  return target.type === 'url' ? probeUrl(target.url, timeoutSec, body) : probeTcp(target.host, target.port, timeoutSec);
}
