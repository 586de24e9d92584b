import assert from 'node:assert/strict';
import type net from 'node:net';
import { test } from 'node:test';
import { type Answer, type DecodedPacket, encode, type Packet } from 'dns-packet';
import { transferZone } from '../../src/dns/axfr-client.ts';
import { toAnswer } from '../../src/dns/records.ts';
import { frame } from '../../src/dns/tcp-frames.ts';
import { ZoneTransferError, type ZoneTransferFailure } from '../../src/dns/transfer-error.ts';
import { EgressPolicy } from '../../src/net/egress.ts';
import { egressGate } from '../../src/net/egress-gate.ts';
import { freePort } from '../helpers/server-process.ts';
import {
  exampleZone,
  fakeTransferServer,
  largeZone,
  memorySource,
  renamed,
  soaOnlyZone,
  startTestNameserver,
} from './helpers.ts';

const TIMEOUT_MS = 5000;
/** Transfers from the test servers on loopback, which the default egress policy refuses. */
const gate = egressGate(new EgressPolicy({ allow: ['127.0.0.0/8', '::1/128'] }));

async function refusal(promise: Promise<unknown>, code: ZoneTransferFailure, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ZoneTransferError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

test('a transfer from the nameserver gives back every record of the zone, in order, the SOA first', async (t) => {
  const zone = exampleZone();
  const { port } = await startTestNameserver(t, memorySource([zone, largeZone(1500)]));
  const got = await transferZone({ host: '127.0.0.1', port, zone: 'Example.COM.', timeoutMs: TIMEOUT_MS, gate });
  assert.deepEqual(got.records, zone.records);
  assert.deepEqual([got.skipped, got.skippedTypes], [0, []]);
  const large = await transferZone({ host: '127.0.0.1', port, zone: 'large.test', timeoutMs: TIMEOUT_MS, gate });
  assert.deepEqual(large.records, largeZone(1500).records, 'a transfer of several messages');
});

test('a host name is resolved; an IPv4 client of a server on IPv6 matches its IPv4 address in axfrIps', async (t) => {
  const zone = exampleZone(['127.0.0.1', '::1']);
  const { port } = await startTestNameserver(t, memorySource([zone]), {}, '::');
  const got = await transferZone({ host: 'localhost', port, zone: 'example.com', timeoutMs: TIMEOUT_MS, gate });
  assert.equal(got.records.length, zone.records.length);
  // Without a reachable resolver the lookup may outlast the transfer's timeout instead.
  await assert.rejects(
    transferZone({ host: 'no-such-host.invalid', port, zone: 'example.com', timeoutMs: TIMEOUT_MS, gate }),
    (err: unknown) => err instanceof ZoneTransferError && (err.code === 'unreachable' || err.code === 'timeout'),
  );
});

test('refusals: a closed port, a server that never answers, REFUSED, NOTAUTH, an empty zone', async (t) => {
  const closed = await freePort();
  await refusal(
    transferZone({ host: '127.0.0.1', port: closed, zone: 'example.com', timeoutMs: TIMEOUT_MS, gate }),
    'unreachable',
    new RegExp(`The nameserver at 127\\.0\\.0\\.1:${closed} refused the connection`),
  );
  const silent = await fakeTransferServer(t, () => {});
  await refusal(
    transferZone({ host: '127.0.0.1', port: silent, zone: 'example.com', timeoutMs: 100, gate }),
    'timeout',
    /did not complete the transfer within 100 ms/,
  );
  const zones = [renamed(exampleZone(), 'private.test', ['192.0.2.1']), soaOnlyZone(), exampleZone()];
  const { port } = await startTestNameserver(t, memorySource(zones));
  const from = (zone: string) => transferZone({ host: '127.0.0.1', port, zone, timeoutMs: TIMEOUT_MS, gate });
  await refusal(from('private.test'), 'refused', /refused the transfer of private\.test \(REFUSED\)/);
  await refusal(from('example.org'), 'refused', /\(REFUSED\)/);
  await refusal(from('www.example.com'), 'refused', /\(NOTAUTH\)/);
  await refusal(from('empty.test'), 'empty', /sent an empty zone for empty\.test/);
});

const SOA = toAnswer(exampleZone().records[0] ?? assert.fail('no SOA'));
const A = toAnswer({ name: 'www.example.com', type: 'A', ttl: 60, data: '192.0.2.1' });

/** A fake nameserver that answers the transfer query with `messages` (answers each), then closes or not. */
async function serving(
  t: Parameters<typeof fakeTransferServer>[0],
  messages: (Answer[] | Buffer)[],
  end = false,
): Promise<number> {
  return fakeTransferServer(t, (query: DecodedPacket, socket: net.Socket) => {
    for (const message of messages) {
      const packet: Packet = {
        type: 'response',
        id: query.id,
        flags: 1 << 10,
        questions: [],
        answers: Buffer.isBuffer(message) ? [] : message,
      };
      socket.write(frame(Buffer.isBuffer(message) ? message : encode(packet)));
    }
    if (end) socket.end();
  });
}

test('refusals: a stream that is not a transfer of the zone', async (t) => {
  const cases: [string, (Answer[] | Buffer)[], boolean, RegExp][] = [
    ['garbage', [Buffer.from('not dns at all')], false, /not valid DNS/],
    ['no SOA first', [[A, SOA]], false, /did not start the transfer with the SOA of example\.com/],
    ['another zone', [[{ ...SOA, name: 'example.org' }, A]], false, /did not start the transfer with the SOA/],
    [
      'a foreign record',
      [[SOA, { ...A, name: 'www.example.org' }, SOA]],
      false,
      /www\.example\.org, a record outside example\.com/,
    ],
    ['no closing SOA', [[SOA, A]], true, /closed the connection before the transfer ended/],
    ['an SOA in the middle', [[SOA, A, SOA, A]], false, /SOA record in the middle/],
  ];
  for (const [label, messages, end, message] of cases) {
    const port = await serving(t, messages, end);
    await refusal(
      transferZone({ host: '127.0.0.1', port, zone: 'example.com', timeoutMs: TIMEOUT_MS, gate }),
      'malformed',
      message,
    ).catch((err: Error) => assert.fail(`${label}: ${err.message}`));
  }
});

test('records of types outside the model are skipped and counted; names come back in lower case', async (t) => {
  const hinfo: Answer = { name: 'www.example.com', type: 'HINFO', ttl: 60, class: 'IN', data: { cpu: 'x86', os: 'linux' } };
  const upper = { ...A, name: 'WWW.Example.COM' };
  const port = await serving(t, [
    [SOA, upper],
    [hinfo, hinfo, SOA],
  ]);
  const got = await transferZone({ host: '127.0.0.1', port, zone: 'example.com', timeoutMs: TIMEOUT_MS, gate });
  assert.deepEqual(
    got.records.map((r) => `${r.name} ${r.type}`),
    ['example.com SOA', 'www.example.com A'],
  );
  assert.deepEqual([got.skipped, got.skippedTypes], [2, ['HINFO']]);
});
