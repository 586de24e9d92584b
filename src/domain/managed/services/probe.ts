import net from 'node:net';
import { withinDeadline } from './probe-deadline.ts';
import { causeOf, down, type ProbeResult, UP } from './probe-outcome.ts';
import type { ProbeTarget } from './service-address.ts';

/** How much of a response body is searched for the expected text. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Whether the body (its first megabyte) holds `expected`, reading no further than needed: only
 * the last `expected.length - 1` characters are kept between chunks. Leaving the loop early cancels
 * the rest of the body.
 */
async function bodyHolds(response: Response, expected: string): Promise<boolean> {
  if (!response.body) return false;
  const decoder = new TextDecoder();
  let tail = '';
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    const text = tail + decoder.decode(chunk, { stream: true });
    if (text.includes(expected)) return true;
    tail = expected.length > 1 ? text.slice(1 - expected.length) : '';
    if (bytes >= BODY_LIMIT_BYTES) return false;
  }
  return (tail + decoder.decode()).includes(expected);
}

/**
 * A url service is up when a GET answers 2xx or 3xx (redirects are not followed) and, if `body` is
 * set, the response body (its first megabyte) holds it: the answer says only whether it does.
 */
async function probeUrl(url: string, body: string | null, signal: AbortSignal): Promise<ProbeResult> {
  const response = await fetch(url, { redirect: 'manual', signal, headers: { 'user-agent': 'cumulo-managed-probe' } });
  if (response.status < 200 || response.status >= 400) {
    await response.body?.cancel();
    return down(`HTTP ${response.status}`);
  }
  if (body === null || body === '') {
    await response.body?.cancel();
    return UP;
  }
  return (await bodyHolds(response, body)) ? UP : down('body not found');
}

/** A tcp service is up when a connection opens; it is closed at once. */
function probeTcp(host: string, port: number, signal: AbortSignal): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (result: ProbeResult) => {
      socket.destroy();
      resolve(result);
    };
    signal.addEventListener('abort', () => done(down('timeout')), { once: true });
    socket.once('connect', () => done(UP));
    socket.once('error', (err) => done(down(causeOf(err))));
  });
}

/**
 * Probes a service once, for real, within `timeoutSec` seconds for the whole probe. Never throws: a
 * failure to reach it is a result with its cause.
 */
export function probe(target: ProbeTarget, timeoutSec: number, body: string | null): Promise<ProbeResult> {
  return withinDeadline(timeoutSec, (signal) =>
    target.type === 'url' ? probeUrl(target.url, body, signal) : probeTcp(target.host, target.port, signal),
  );
}
