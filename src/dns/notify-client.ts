import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { AUTHORITATIVE_ANSWER, type DecodedPacket, decode, encode } from 'dns-packet';
import { type EgressGate, EgressRefusedError } from '../net/egress-gate.ts';
import { formatHostPort, type HostPort } from './host-port.ts';
import { OPCODE_NOTIFY, opcodeOf, rcodeOf } from './message.ts';

export interface NotifyRequest extends HostPort {
  /** The zone that changed. */
  zone: string;
  /** How long to wait for the answer to each try. */
  timeoutMs: number;
  /** How many times to send before giving up (RFC 1996 3.6: a NOTIFY is sent again until answered). */
  tries: number;
  /** Checks the address the NOTIFY goes to (src/net/egress-gate.ts): a refused one is sent nothing. */
  gate: EgressGate;
}

type Exchanged = { answer: DecodedPacket } | { error: string } | null;

/**
 * One NOTIFY over UDP: resolves with the answer, the socket's error (connected, so that a port
 * nobody listens on is refused at once), or null when nothing came within the timeout.
 */
function exchange(request: NotifyRequest, address: string, id: number): Promise<Exchanged> {
  const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
  const message = encode({
    type: 'query',
    id,
    flags: (OPCODE_NOTIFY << 11) | AUTHORITATIVE_ANSWER,
    questions: [{ name: request.zone, type: 'SOA', class: 'IN' }],
  });
  return new Promise<Exchanged>((resolve) => {
    const done = (result: Exchanged) => {
      clearTimeout(timer);
      socket.close();
      resolve(result);
    };
    const timer = setTimeout(() => done(null), request.timeoutMs);
    socket.on('message', (reply) => {
      try {
        const packet = decode(reply);
        if (packet.type === 'response' && packet.id === id && opcodeOf(packet) === OPCODE_NOTIFY) done({ answer: packet });
      } catch {
        // Not DNS: keep waiting for the answer.
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
    socket.connect(request.port, address, () => socket.send(message));
  });
}

/**
 * Tells the nameserver at `host:port` that `zone` changed (RFC 1996), so that a secondary checks its
 * copy at once. Resolves with what became of it, in words for the log: the answer's code, or that
 * none came after every try. Never throws for what the other server does.
 */
export async function sendNotify(request: NotifyRequest): Promise<{ acknowledged: boolean; outcome: string }> {
  const where = formatHostPort(request);
  let address: string;
  try {
    address = (await request.gate(request.host, request.port)).address;
  } catch (error) {
    const why = error instanceof EgressRefusedError ? 'is not an address this service may connect to' : 'does not resolve';
    return { acknowledged: false, outcome: `${where} ${why}: nothing sent` };
  }
  for (let attempt = 1; attempt <= request.tries; attempt += 1) {
    const result = await exchange(request, address, randomInt(0x10000));
    if (result && 'error' in result) return { acknowledged: false, outcome: `${where} could not be reached (${result.error})` };
    if (result) {
      const rcode = rcodeOf(result.answer);
      return rcode === 0
        ? { acknowledged: true, outcome: `${where} acknowledged` }
        : { acknowledged: false, outcome: `${where} answered with response code ${rcode}` };
    }
  }
  return { acknowledged: false, outcome: `${where} did not answer ${request.tries} tries` };
}
