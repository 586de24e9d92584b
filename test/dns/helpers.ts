import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import { type DecodedPacket, decode, encode, type Packet } from 'dns-packet';
import { pino } from 'pino';
import { Nameserver, type NameserverOptions } from '../../src/dns/nameserver.ts';
import { isInZone } from '../../src/dns/records.ts';
import { FrameReader, frame } from '../../src/dns/tcp-frames.ts';
import type { Zone, ZoneRecord, ZoneSource } from '../../src/dns/zone.ts';
import { systemTool } from '../helpers/system-tools.ts';

const run = promisify(execFile);

export const SOA_MINIMUM = 300;

function soa(origin: string, serial: number): ZoneRecord {
  const data = { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial, refresh: 14400, retry: 3600, expire: 604800 };
  return { name: origin, type: 'SOA', ttl: 86400, data: { ...data, minimum: SOA_MINIMUM } };
}

const txt = (name: string, count: number, length: number): ZoneRecord[] =>
  Array.from({ length: count }, (_, i) => ({ name, type: 'TXT', ttl: 300, data: [`${i}`.padStart(length, 'x')] }));

/** A zone with every record type, CNAME chains, an empty non-terminal, a wildcard and a delegation. */
export function exampleZone(axfrIps: readonly string[] = ['127.0.0.1']): Zone {
  const records: ZoneRecord[] = [
    soa('example.com', 2026010101),
    { name: 'example.com', type: 'NS', ttl: 86400, data: 'ns1.example.com' },
    { name: 'example.com', type: 'NS', ttl: 86400, data: 'ns2.example.com' },
    { name: 'example.com', type: 'A', ttl: 300, data: '192.0.2.10' },
    { name: 'example.com', type: 'MX', ttl: 300, data: { preference: 10, exchange: 'mail.example.com' } },
    { name: 'example.com', type: 'TXT', ttl: 300, data: ['v=spf1 -all'] },
    { name: 'example.com', type: 'CAA', ttl: 300, data: { flags: 0, tag: 'issue', value: 'ca.example.net' } },
    { name: 'www.example.com', type: 'A', ttl: 300, data: '192.0.2.1' },
    { name: 'www.example.com', type: 'AAAA', ttl: 300, data: '2001:db8::1' },
    { name: 'mail.example.com', type: 'A', ttl: 300, data: '192.0.2.25' },
    { name: 'multi.example.com', type: 'TXT', ttl: 300, data: ['part one', 'part two'] },
    {
      name: '_sip._tcp.example.com',
      type: 'SRV',
      ttl: 300,
      data: { priority: 10, weight: 20, port: 5060, target: 'sip.example.com' },
    },
    { name: 'ptr.example.com', type: 'PTR', ttl: 300, data: 'host.example.org' },
    { name: 'alias.example.com', type: 'CNAME', ttl: 300, data: 'www.example.com' },
    { name: 'chain.example.com', type: 'CNAME', ttl: 300, data: 'alias.example.com' },
    { name: 'away.example.com', type: 'CNAME', ttl: 300, data: 'elsewhere.example.net' },
    { name: 'dangling.example.com', type: 'CNAME', ttl: 300, data: 'nothing.example.com' },
    { name: 'loop1.example.com', type: 'CNAME', ttl: 300, data: 'loop2.example.com' },
    { name: 'loop2.example.com', type: 'CNAME', ttl: 300, data: 'loop1.example.com' },
    { name: 'a.b.deep.example.com', type: 'A', ttl: 300, data: '192.0.2.30' },
    { name: '*.wild.example.com', type: 'A', ttl: 300, data: '192.0.2.99' },
    { name: 'sub.example.com', type: 'NS', ttl: 3600, data: 'ns.sub.example.com' },
    { name: 'ns.sub.example.com', type: 'A', ttl: 3600, data: '192.0.2.53' },
    // About 800 bytes over UDP: more than 512, less than 1232.
    ...txt('medium.example.com', 8, 80),
    // About 4 KB: over any UDP size Cumulo sends.
    ...txt('big.example.com', 40, 100),
  ];
  return { origin: 'example.com', records, axfrIps };
}

/** A zone of `count` A records, for transfers of several messages. */
export function largeZone(count: number): Zone {
  const records: ZoneRecord[] = [soa('large.test', 7), { name: 'large.test', type: 'NS', ttl: 3600, data: 'ns1.large.test' }];
  for (let i = 0; i < count; i++)
    records.push({ name: `host${i}.large.test`, type: 'A', ttl: 300, data: `10.0.${i >> 8}.${i & 255}` });
  return { origin: 'large.test', records, axfrIps: ['127.0.0.1'] };
}

/** A zone holding its SOA and nothing else. */
export function soaOnlyZone(): Zone {
  return { origin: 'empty.test', records: [soa('empty.test', 1)], axfrIps: ['127.0.0.1'] };
}

/** Zones in memory, found as the database source finds them: the longest origin holding the name. */
export function memorySource(zones: readonly Zone[]): ZoneSource {
  return {
    async zoneFor(name) {
      const holding = zones.filter((z) => isInZone(name, z.origin));
      return holding.sort((a, b) => b.origin.length - a.origin.length)[0] ?? null;
    },
  };
}

/** `zone` under another origin, with other axfrIps. */
export function renamed(zone: Zone, origin: string, axfrIps: readonly string[]): Zone {
  const records = zone.records.map((r) => ({ ...r, name: r.name.replace(new RegExp(`${zone.origin}$`), origin) }));
  return { origin, records, axfrIps };
}

/** A nameserver on `host` (a free port) answering from `source`. */
export async function listenTestNameserver(
  source: ZoneSource,
  options: Partial<NameserverOptions> = {},
  host = '127.0.0.1',
): Promise<{ server: Nameserver; port: number }> {
  const server = new Nameserver({ source, log: pino({ level: 'silent' }), ...options });
  const bound = await server.listen(host, 0);
  return { server, port: bound.udpPort };
}

/** The same, closed when the test ends. */
export async function startTestNameserver(
  t: TestContext,
  source: ZoneSource,
  options: Partial<NameserverOptions> = {},
  host = '127.0.0.1',
): Promise<{ server: Nameserver; port: number }> {
  const started = await listenTestNameserver(source, options, host);
  t.after(() => started.server.close());
  return started;
}

export interface DigRecord {
  name: string;
  ttl: number;
  type: string;
  /** The record data as dig presents it. */
  data: string;
}

export interface DigAnswer {
  status: string;
  flags: string[];
  question: string;
  answer: DigRecord[];
  authority: DigRecord[];
  additional: DigRecord[];
  /** The UDP size of the server's OPT record, null without one. */
  ednsUdp: number | null;
  output: string;
}

function record(line: string): DigRecord {
  const [name = '', ttl = '', , type = '', ...data] = line.split(/\s+/);
  return { name, ttl: Number(ttl), type, data: data.join(' ') };
}

function section(output: string, title: string): DigRecord[] {
  const start = output.indexOf(`;; ${title} SECTION:\n`);
  if (start < 0) return [];
  const body = output.slice(start).split('\n').slice(1);
  const end = body.indexOf('');
  return body.slice(0, end < 0 ? undefined : end).map(record);
}

/** Runs the real dig against 127.0.0.1:`port` (no recursion asked) and reads its answer. */
export async function dig(port: number, ...args: string[]): Promise<DigAnswer> {
  const { stdout } = await run(systemTool('dig'), [
    '@127.0.0.1',
    '-p',
    String(port),
    '+norecurse',
    '+tries=1',
    '+time=5',
    ...args,
  ]);
  const status = /status: (\w+)/.exec(stdout)?.[1];
  const flags = /;; flags:([^;]*);/.exec(stdout)?.[1];
  if (status === undefined || flags === undefined) throw new Error(`dig printed no header:\n${stdout}`);
  const question = /;; QUESTION SECTION:\n;(\S+)/.exec(stdout)?.[1] ?? '';
  const udp = /; EDNS: version: \d+, flags:[^;]*; udp: (\d+)/.exec(stdout)?.[1];
  return {
    status,
    flags: flags.trim().split(/\s+/),
    question,
    answer: section(stdout, 'ANSWER'),
    authority: section(stdout, 'AUTHORITY'),
    additional: section(stdout, 'ADDITIONAL').filter((r) => r.type !== 'OPT'),
    ednsUdp: udp === undefined ? null : Number(udp),
    output: stdout,
  };
}

export interface DigTransfer {
  failed: boolean;
  records: DigRecord[];
  /** How many messages the transfer took, as dig counts them. */
  messages: number;
  output: string;
}

/** A zone transfer (`AXFR`, or `IXFR=serial`) by the real dig from 127.0.0.1:`port`. */
export async function digTransfer(port: number, zone: string, type = 'AXFR'): Promise<DigTransfer> {
  const { stdout } = await run(systemTool('dig'), ['@127.0.0.1', '-p', String(port), '+tries=1', '+time=5', zone, type]);
  const lines = stdout.split('\n').filter((l) => l !== '' && !l.startsWith(';'));
  return {
    failed: stdout.includes('; Transfer failed.'),
    records: lines.map(record),
    messages: Number(/messages (\d+)/.exec(stdout)?.[1] ?? 0),
    output: stdout,
  };
}

/** `name TTL TYPE data` in dig's presentation, names with their trailing dot. */
export const shown = (r: DigRecord) => `${r.name} ${r.ttl} ${r.type} ${r.data}`;

/** The data of a decoded answer (`i`th of the answer section). */
export function dataOf(packet: Packet, i = 0): unknown {
  const answer = packet.answers?.[i];
  return answer && 'data' in answer ? answer.data : undefined;
}

/** Sends one UDP message to 127.0.0.1:`port` (from `from`, an address of this machine, when given) and decodes the reply. */
export async function udpExchange(port: number, message: Buffer | Packet, from?: string): Promise<DecodedPacket> {
  const socket = dgram.createSocket('udp4');
  if (from) await new Promise<void>((resolve) => socket.bind({ address: from, port: 0 }, resolve));
  // A reply that never comes fails the test by its timeout without keeping the process alive.
  socket.unref();
  try {
    return await new Promise<DecodedPacket>((resolve, reject) => {
      socket.once('message', (reply) => resolve(decode(reply)));
      socket.once('error', reject);
      socket.send(Buffer.isBuffer(message) ? message : encode(message), port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

/** Sends `bytes` on a TCP connection and collects the messages that come back until `count` have. */
export async function tcpExchange(port: number, bytes: Buffer, count: number): Promise<DecodedPacket[]> {
  const socket = net.connect({ host: '127.0.0.1', port });
  const reader = new FrameReader();
  const replies: DecodedPacket[] = [];
  try {
    return await new Promise<DecodedPacket[]>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        replies.push(...reader.push(chunk).map((m) => decode(m)));
        if (replies.length >= count) resolve(replies);
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error(`connection closed after ${replies.length} of ${count} replies`)));
      socket.write(bytes);
    });
  } finally {
    socket.destroy();
  }
}

/** A query for `name` `type`, framed for TCP. */
export function framedQuery(id: number, name: string, type: 'A' | 'AXFR' | 'SOA'): Buffer {
  return frame(encode({ type: 'query', id, questions: [{ name, type, class: 'IN' }] }));
}

/**
 * A TCP server on 127.0.0.1 playing a nameserver for transfer tests: it reads the first query and
 * calls `reply` with it and the socket (which may write, or never answer). Closed when the test ends.
 */
export async function fakeTransferServer(
  t: TestContext,
  reply: (query: DecodedPacket, socket: net.Socket) => void,
): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    const reader = new FrameReader();
    socket.on('data', (chunk: Buffer) => {
      const [first] = reader.push(chunk);
      if (first) reply(decode(first), socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as net.AddressInfo).port;
}
