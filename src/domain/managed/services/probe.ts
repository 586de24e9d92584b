import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { type Destination, type EgressGate, EgressRefusedError, pinnedLookup } from '../../../net/egress-gate.ts';
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
async function bodyHolds(body: AsyncIterable<Uint8Array>, expected: string): Promise<boolean> {
  const decoder = new TextDecoder();
  let tail = '';
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    const text = tail + decoder.decode(chunk, { stream: true });
    if (text.includes(expected)) return true;
    tail = expected.length > 1 ? text.slice(1 - expected.length) : '';
    if (bytes >= BODY_LIMIT_BYTES) return false;
  }
  return (tail + decoder.decode()).includes(expected);
}

/** A GET of `url` sent to the checked destination (TLS and Host still use the URL's name); redirects are not followed. */
function getFrom(url: string, destination: Destination, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, {
      lookup: pinnedLookup(destination),
      agent: false,
      signal,
      headers: { 'user-agent': 'cumulo-managed-probe' },
    });
    request.once('response', resolve);
    request.once('error', reject);
  });
}

/**
 * A url service is up when a GET answers 2xx or 3xx (redirects are not followed) and, if `body` is
 * set, the response body (its first megabyte) holds it: the answer says only whether it does.
 */
async function probeUrl(
  target: Extract<ProbeTarget, { type: 'url' }>,
  body: string | null,
  signal: AbortSignal,
  gate: EgressGate,
): Promise<ProbeResult> {
  const response = await getFrom(target.url, await gate(target.host, target.port, signal), signal);
  try {
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 400) return down(`HTTP ${status}`);
    if (body === null || body === '') return UP;
    return (await bodyHolds(response, body)) ? UP : down('body not found');
  } finally {
    response.destroy();
  }
}

/** A tcp service is up when a connection opens (to the address the gate checked); it is closed at once. */
async function probeTcp(host: string, port: number, signal: AbortSignal, gate: EgressGate): Promise<ProbeResult> {
  const destination = await gate(host, port, signal);
  return new Promise((resolve) => {
    const socket = net.connect({ host: destination.address, port });
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
 * Probes a service once, for real, within `timeoutSec` seconds for the whole probe, through the
 * egress gate: its name resolved now and the connection made to the address checked, and nothing
 * sent to an address the policy refuses. Never throws: a failure to reach it is a result with its cause.
 */
export function probe(target: ProbeTarget, timeoutSec: number, body: string | null, gate: EgressGate): Promise<ProbeResult> {
  return withinDeadline(timeoutSec, async (signal) => {
    try {
      return target.type === 'url'
        ? await probeUrl(target, body, signal, gate)
        : await probeTcp(target.host, target.port, signal, gate);
    } catch (err) {
      if (err instanceof EgressRefusedError) return down('address not allowed');
      throw err;
    }
  });
}
