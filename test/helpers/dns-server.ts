import dgram from 'node:dgram';
import net from 'node:net';
import type { TestContext } from 'node:test';
import { type Answer, decode, encode, type Packet, RECURSION_AVAILABLE, RECURSION_DESIRED } from 'dns-packet';

const NXDOMAIN = 3;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the form config.dnsResolvers (CUMULO_DNS_RESOLVERS) takes. */
  readonly address: string;
  /** Points `name` at `addresses`: A records for the IPv4 ones, AAAA for the IPv6 ones. */
  set(name: string, addresses: readonly string[]): void;
  /** While silent, queries get no answer at all (a resolver that is down). */
  silent: boolean;
  /** How many queries have come in. */
  readonly queries: number;
}

/**
 * A real DNS server on UDP 127.0.0.1 (a free port) for the forward lookups of the app under test:
 * it answers A and AAAA questions from the names it is given, NXDOMAIN for any other name, an empty
 * answer for a known name without records of the asked type. Closed when the test ends.
 */
export async function startDnsServer(t: TestContext): Promise<TestDnsServer> {
  const records = new Map<string, readonly string[]>();
  const socket = dgram.createSocket('udp4');
  let queries = 0;
  const server = {
    address: '',
    silent: false,
    get queries() {
      return queries;
    },
    set(name: string, addresses: readonly string[]) {
      records.set(name.toLowerCase(), addresses);
    },
  };
  socket.on('message', (message, peer) => {
    queries += 1;
    if (server.silent) return;
    const query = decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    const known = records.get(question.name.toLowerCase());
    const version = question.type === 'A' ? 4 : question.type === 'AAAA' ? 6 : 0;
    const answers: Answer[] = (known ?? [])
      .filter((a) => net.isIP(a) === version)
      .map((data) => ({ name: question.name, type: version === 4 ? 'A' : 'AAAA', class: 'IN', ttl: 60, data }));
    const reply: Packet = {
      type: 'response',
      id: query.id ?? 0,
      flags: ((query.flags ?? 0) & RECURSION_DESIRED) | RECURSION_AVAILABLE | (known ? 0 : NXDOMAIN),
      questions: [question],
      answers,
    };
    socket.send(encode(reply), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.address = `127.0.0.1:${socket.address().port}`;
  t.after(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return server;
}
