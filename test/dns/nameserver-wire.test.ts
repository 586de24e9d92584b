import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { test } from 'node:test';
import { type DecodedPacket, decode, encode, type Packet } from 'dns-packet';
import fc from 'fast-check';
import { pino } from 'pino';
import { Rcode, rcodeOf } from '../../src/dns/message.ts';
import { respond } from '../../src/dns/respond.ts';
import { frame } from '../../src/dns/tcp-frames.ts';
import type { Zone } from '../../src/dns/zone.ts';
import { needs } from '../helpers/system-tools.ts';
import { dataOf, dig, exampleZone, framedQuery, memorySource, startTestNameserver, tcpExchange, udpExchange } from './helpers.ts';

const source = memorySource([exampleZone()]);
const silent = pino({ level: 'silent' });
const query = (id: number, name: string, type: 'A' | 'AXFR' | 'IXFR' | 'TXT', extra: Partial<Packet> = {}): Packet => ({
  type: 'query',
  id,
  questions: [{ name, type, class: 'IN' }],
  ...extra,
});
const opt = (ednsVersion = 0) => ({
  name: '.',
  type: 'OPT' as const,
  udpPayloadSize: 1232,
  extendedRcode: 0,
  ednsVersion,
  flags: 0,
  flag_do: false,
  options: [],
});

test('a query whose body does not decode gets FORMERR with its id; a short or response message gets nothing', async () => {
  const whole = encode(query(4242, 'www.example.com', 'A'));
  const [formerr] = await respond(
    whole.subarray(0, whole.length - 3),
    { address: '127.0.0.1', transport: 'udp' },
    source,
    silent,
  );
  const reply = decode(formerr ?? Buffer.alloc(0));
  assert.deepEqual([reply.id, reply.type, rcodeOf(reply), reply.questions], [4242, 'response', Rcode.FORMERR, []]);
  assert.deepEqual(await respond(whole.subarray(0, 11), { address: '127.0.0.1', transport: 'udp' }, source, silent), []);
  const response = encode({ ...query(1, 'www.example.com', 'A'), type: 'response' });
  assert.deepEqual(await respond(response, { address: '127.0.0.1', transport: 'udp' }, source, silent), []);
});

test('FORMERR without exactly one question or with two OPT records; NOTIMP for opcodes other than QUERY and NOTIFY; BADVERS for EDNS 1', async (t) => {
  const { port } = await startTestNameserver(t, source);
  const none = await udpExchange(port, { type: 'query', id: 1, questions: [] });
  assert.equal(rcodeOf(none), Rcode.FORMERR);
  const two = await udpExchange(port, {
    type: 'query',
    id: 2,
    questions: [
      { name: 'www.example.com', type: 'A' },
      { name: 'example.com', type: 'A' },
    ],
  });
  assert.equal(rcodeOf(two), Rcode.FORMERR);
  const twoOpts = await udpExchange(port, query(3, 'www.example.com', 'A', { additionals: [opt(), opt()] }));
  assert.equal(rcodeOf(twoOpts), Rcode.FORMERR);
  const notify = await udpExchange(port, query(14, 'example.com', 'A', { flags: 4 << 11 }));
  assert.deepEqual(
    [notify.id, rcodeOf(notify), (notify.flags ?? 0) >> 11],
    [14, Rcode.REFUSED, 4],
    'a NOTIFY for a zone the source keeps no copy of',
  );
  for (const opcode of [1, 2, 5]) {
    const reply = await udpExchange(port, query(10 + opcode, 'www.example.com', 'A', { flags: opcode << 11 }));
    assert.deepEqual(
      [reply.id, rcodeOf(reply), (reply.flags ?? 0) >> 11],
      [10 + opcode, Rcode.NOTIMP, opcode],
      `opcode ${opcode}`,
    );
  }
  const badvers = await udpExchange(port, query(20, 'www.example.com', 'A', { additionals: [opt(1)] }));
  assert.deepEqual([rcodeOf(badvers), badvers.answers], [Rcode.BADVERS, []]);
});

test('AXFR over UDP is FORMERR; IXFR over UDP gets the SOA alone; a name inside a zone is not a zone to transfer', async (t) => {
  const { port } = await startTestNameserver(t, source);
  assert.equal(rcodeOf(await udpExchange(port, query(1, 'example.com', 'AXFR'))), Rcode.FORMERR);
  const ixfr = await udpExchange(port, query(2, 'example.com', 'IXFR'));
  assert.deepEqual([rcodeOf(ixfr), ixfr.flag_aa, ixfr.answers?.map((a) => a.type)], [Rcode.NOERROR, true, ['SOA']]);
  const [notauth] = await tcpExchange(port, framedQuery(3, 'www.example.com', 'AXFR'), 1);
  assert.equal(rcodeOf(notauth ?? ({} as DecodedPacket)), Rcode.NOTAUTH);
});

test('a zone source that fails gets SERVFAIL', async (t) => {
  const failing = {
    async zoneFor(): Promise<Zone | null> {
      throw new Error('database down');
    },
  };
  const { port } = await startTestNameserver(t, failing);
  const reply = await udpExchange(port, query(9, 'www.example.com', 'A'));
  assert.deepEqual([reply.id, rcodeOf(reply), reply.answers], [9, Rcode.SERVFAIL, []]);
});

test('random bytes and mangled queries never crash it: each gets nothing or a decodable response', async () => {
  const valid = encode(query(77, 'www.example.com', 'TXT', { additionals: [opt()] }));
  const mangled = fc
    .array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), { maxLength: 8 })
    .map((edits) => {
      const copy = Buffer.from(valid);
      for (const [at, value] of edits) copy[at] = value;
      return copy;
    });
  const garbage = fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes));
  await fc.assert(
    fc.asyncProperty(fc.oneof(garbage, mangled), fc.constantFrom('udp' as const, 'tcp' as const), async (message, transport) => {
      for (const reply of await respond(message, { address: '127.0.0.1', transport }, source, silent)) {
        assert.equal(decode(reply).type, 'response');
      }
    }),
    { seed: 9, numRuns: 3000 },
  );
});

test('after a burst of garbage over UDP and TCP, dig still gets its answer', needs('dig'), async (t) => {
  const { port } = await startTestNameserver(t, source);
  const samples = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 300 }), { seed: 3, numRuns: 200 });
  const socket = dgram.createSocket('udp4');
  for (const bytes of samples) await new Promise((resolve) => socket.send(bytes, port, '127.0.0.1', resolve));
  socket.close();
  const tcp = net.connect({ host: '127.0.0.1', port });
  tcp.on('error', () => {});
  await new Promise((resolve) => tcp.on('connect', resolve));
  for (const bytes of samples.slice(0, 20)) tcp.write(frame(Buffer.from(bytes)));
  tcp.end();
  const res = await dig(port, 'www.example.com', 'A');
  assert.deepEqual([res.status, res.answer.map((r) => r.data)], ['NOERROR', ['192.0.2.1']]);
});

test('TCP: several queries on one connection, sent at once or byte by byte, answered in order', async (t) => {
  const { port } = await startTestNameserver(t, source);
  const both = Buffer.concat([framedQuery(1, 'www.example.com', 'A'), framedQuery(2, 'mail.example.com', 'A')]);
  const replies = await tcpExchange(port, both, 2);
  assert.deepEqual(
    replies.map((r) => [r.id, dataOf(r)]),
    [
      [1, '192.0.2.1'],
      [2, '192.0.2.25'],
    ],
  );
  const socket = net.connect({ host: '127.0.0.1', port });
  const got = new Promise<Buffer>((resolve) => socket.once('data', resolve));
  const one = framedQuery(3, 'www.example.com', 'A');
  await new Promise((resolve) => socket.on('connect', resolve));
  for (const byte of one) await new Promise((resolve) => socket.write(Buffer.from([byte]), resolve));
  const reply = decode((await got).subarray(2));
  socket.destroy();
  assert.deepEqual([reply.id, dataOf(reply)], [3, '192.0.2.1']);
});

/** Resolves once the server closes the connection, with whatever it sent first. */
function closedBy(socket: net.Socket): Promise<string> {
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString('hex');
  });
  socket.on('error', () => {});
  return new Promise((resolve) => socket.on('close', () => resolve(received)));
}

test('TCP limits: an oversized message closes the connection, so does idleness', { timeout: 20_000 }, async (t) => {
  const small = await startTestNameserver(t, source, { maxTcpQueryBytes: 512 });
  const oversized = net.connect({ host: '127.0.0.1', port: small.port });
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(600);
  oversized.write(prefix);
  assert.equal(await closedBy(oversized), '', 'closed without an answer');

  const quick = await startTestNameserver(t, source, { tcpIdleMs: 50 });
  const idle = net.connect({ host: '127.0.0.1', port: quick.port });
  idle.write(framedQuery(1, 'www.example.com', 'A'));
  assert.notEqual(await closedBy(idle), '', 'answered, then closed once idle');
});

/** A TCP connection to the nameserver from `from` (an address of this machine), open once connected. */
async function connectFrom(port: number, from: string): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** Sends a query on an open connection and resolves with the id of the answer. */
function answerId(socket: net.Socket, id: number): Promise<number> {
  return new Promise((resolve, reject) => {
    socket.once('data', (d: Buffer) => resolve(decode(d.subarray(2)).id ?? -1));
    socket.once('close', () => reject(new Error('closed without an answer')));
    socket.write(framedQuery(id, 'www.example.com', 'A'));
  });
}

test('TCP: past the total, the connection waiting longest without a query is closed to admit a new one', {
  timeout: 20_000,
}, async (t) => {
  const { port } = await startTestNameserver(t, source, { maxTcpConnections: 1 });
  const first = await connectFrom(port, '127.0.0.1');
  assert.equal(await answerId(first, 1), 1);
  const firstClosed = closedBy(first);
  const second = await connectFrom(port, '127.0.0.1');
  assert.equal(await answerId(second, 2), 2, 'the new connection is answered');
  assert.equal(await firstClosed, '', 'the idle one made room');
  second.destroy();
});

test('TCP: one address may hold only so many connections; the rest are closed as they come', { timeout: 20_000 }, async (t) => {
  const { port } = await startTestNameserver(t, source, { maxTcpConnectionsPerAddress: 4, tcpIdleMs: 60_000 });
  const held: net.Socket[] = [];
  t.after(() => {
    for (const s of held) s.destroy();
  });
  for (let i = 0; i < 6; i++) held.push(await connectFrom(port, '127.0.0.2'));
  const answered = await Promise.allSettled(held.map((s, i) => answerId(s, 100 + i)));
  assert.deepEqual(
    answered.map((r) => (r.status === 'fulfilled' ? r.value : 'closed')),
    [100, 101, 102, 103, 'closed', 'closed'],
  );
  const other = await connectFrom(port, '127.0.0.1');
  assert.equal(await answerId(other, 7), 7, 'another address is not held back');
  other.destroy();
});

test('TCP: a query that does not arrive whole in time closes its connection, even a byte at a time', {
  timeout: 20_000,
}, async (t) => {
  const { port } = await startTestNameserver(t, source, { tcpMessageMs: 200, tcpIdleMs: 60_000 });
  const slow = await connectFrom(port, '127.0.0.2');
  const closed = closedBy(slow);
  const bytes = framedQuery(1, 'www.example.com', 'A');
  let sent = 0;
  const drip = setInterval(() => {
    if (sent < bytes.length - 1 && !slow.destroyed) slow.write(bytes.subarray(sent, ++sent));
  }, 50);
  t.after(() => clearInterval(drip));
  assert.equal(await closed, '', 'closed before the query was whole, without an answer');
  const quick = await startTestNameserver(t, source, { tcpIdleMs: 100 });
  const silent = await connectFrom(quick.port, '127.0.0.3');
  assert.equal(await closedBy(silent), '', 'a connection that never sends is closed once idle');
});

test('TCP: with a hundred idle and slow connections held from other addresses, queries and AXFR over TCP are answered', {
  timeout: 30_000,
}, async (t) => {
  const { port } = await startTestNameserver(t, source, { tcpIdleMs: 60_000, tcpMessageMs: 60_000 });
  const held: net.Socket[] = [];
  t.after(() => {
    for (const s of held) s.destroy();
  });
  for (let i = 0; i < 120; i++) {
    const socket = await connectFrom(port, `127.0.0.${2 + (i % 8)}`);
    held.push(socket);
    // Half of them start a query and never finish it, as a slow sender does.
    if (i % 2 === 0) socket.write(Buffer.from([0]));
  }
  const [reply] = await tcpExchange(port, framedQuery(1, 'www.example.com', 'A'), 1);
  assert.deepEqual([reply?.id, reply && dataOf(reply)], [1, '192.0.2.1']);
  const [axfr] = await tcpExchange(port, framedQuery(2, 'example.com', 'AXFR'), 1);
  assert.deepEqual([axfr?.id, rcodeOf(axfr ?? ({} as DecodedPacket)), axfr?.answers?.[0]?.type], [2, Rcode.NOERROR, 'SOA']);
});

/** A connection attempt's error code once it fails (ECONNREFUSED when nothing listens). */
function connectError(port: number): Promise<string | undefined> {
  const conn = net.connect({ host: '127.0.0.1', port });
  return new Promise((resolve) => conn.on('error', (err: NodeJS.ErrnoException) => resolve(err.code)));
}

test('close stops taking connections at once, answers the queries in flight (UDP and TCP), then closes', {
  timeout: 20_000,
}, async (t) => {
  const gate = Promise.withResolvers<void>();
  let waiting = 0;
  const bothAsked = Promise.withResolvers<void>();
  const slow = {
    async zoneFor(name: string) {
      if (++waiting === 2) bothAsked.resolve();
      await gate.promise;
      return source.zoneFor(name);
    },
  };
  const { server, port } = await startTestNameserver(t, slow);
  const overUdp = udpExchange(port, query(5, 'www.example.com', 'A'));
  const overTcp = tcpExchange(port, framedQuery(6, 'www.example.com', 'A'), 1);
  await bothAsked.promise;
  const closing = server.close();
  assert.equal(await connectError(port), 'ECONNREFUSED', 'no new connection once closing');
  gate.resolve();
  const [udpReply, [tcpReply]] = await Promise.all([overUdp, overTcp]);
  await closing;
  assert.deepEqual([udpReply.id, dataOf(udpReply)], [5, '192.0.2.1']);
  assert.deepEqual([tcpReply?.id, tcpReply && dataOf(tcpReply)], [6, '192.0.2.1']);
});
