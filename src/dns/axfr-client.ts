import { randomInt } from 'node:crypto';
import net from 'node:net';
import { type DecodedPacket, decode, encode } from 'dns-packet';
import type { EgressGate } from '../net/egress-gate.ts';
import { formatHostPort } from './host-port.ts';
import { rcodeOf } from './message.ts';
import { fromAnswer, isInZone, modelName } from './records.ts';
import { checkedServer } from './soa-query.ts';
import { FrameReader, frame } from './tcp-frames.ts';
import { ZoneTransferError, type ZoneTransferFailure } from './transfer-error.ts';
import type { ZoneRecord } from './zone.ts';

/** How long a whole transfer may take, in lookups' timeouts (CUMULO_DNS_TIMEOUT_MS): a zone is many answers. */
export function transferTimeoutMs(lookupTimeoutMs: number): number {
  return lookupTimeoutMs * 5;
}

export interface TransferRequest {
  /** An IP address or a host name (resolved by the system's resolver through `gate`, when the transfer starts). */
  host: string;
  port: number;
  /** Checks the address the transfer connects to (src/net/egress-gate.ts). */
  gate: EgressGate;
  /** The zone's apex, in any case, with or without the trailing dot. */
  zone: string;
  /** The whole transfer, name resolution included, ends with a timeout error after this long. */
  timeoutMs: number;
  /** More records than this end the transfer with an error (default 100 000). */
  maxRecords?: number;
}

export interface TransferredZone {
  /** The SOA first, then the other records in the order the server sent them (model form). */
  records: ZoneRecord[];
  /** How many records were left out because the zone model has no such type, and which types they had. */
  skipped: number;
  skippedTypes: string[];
}

const RCODE_NAMES: Record<number, string> = {
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  9: 'NOTAUTH',
};

/** Collects the records of an AXFR stream (RFC 5936 2.2) and says when the closing SOA has come. */
class TransferStream {
  readonly records: ZoneRecord[] = [];
  readonly skippedTypes = new Map<string, number>();
  readonly #where: string;
  readonly #origin: string;
  readonly #queryId: number;
  readonly #maxRecords: number;

  constructor(where: string, origin: string, queryId: number, maxRecords: number) {
    this.#where = where;
    this.#origin = origin;
    this.#queryId = queryId;
    this.#maxRecords = maxRecords;
  }

  #fail(code: ZoneTransferFailure, message: string): never {
    throw new ZoneTransferError(code, `The nameserver at ${this.#where} ${message}`);
  }

  /** Takes one message; true once the transfer is complete. */
  take(message: Buffer): boolean {
    let packet: DecodedPacket;
    try {
      packet = decode(message);
    } catch {
      return this.#fail('malformed', 'sent a message that is not valid DNS');
    }
    if (packet.type !== 'response' || packet.id !== this.#queryId)
      this.#fail('malformed', 'sent a message that does not answer the transfer query');
    const rcode = rcodeOf(packet);
    if (rcode !== 0) {
      const name = RCODE_NAMES[rcode] ?? `response code ${rcode}`;
      this.#fail('refused', `refused the transfer of ${this.#origin} (${name})`);
    }
    const answers = packet.answers ?? [];
    for (const [i, answer] of answers.entries()) {
      const record = fromAnswer(answer);
      const name = modelName(answer.name);
      const first = this.records.length === 0;
      if (first && (record?.type !== 'SOA' || name !== this.#origin))
        this.#fail('malformed', `did not start the transfer with the SOA of ${this.#origin}`);
      if (!isInZone(name, this.#origin)) this.#fail('malformed', `sent ${name}, a record outside ${this.#origin}`);
      if (!first && record?.type === 'SOA') {
        const opening = this.records[0];
        if (name !== this.#origin || i !== answers.length - 1)
          this.#fail('malformed', 'sent an SOA record in the middle of the transfer');
        if (opening?.type === 'SOA' && opening.data.serial !== record.data.serial)
          this.#fail('malformed', 'changed the zone during the transfer (the closing SOA has another serial)');
        return true;
      }
      if (record) this.records.push(record);
      else this.skippedTypes.set(answer.type, (this.skippedTypes.get(answer.type) ?? 0) + 1);
      if (this.records.length > this.#maxRecords) this.#fail('too_large', `sent more than ${this.#maxRecords} records`);
    }
    return false;
  }
}

/**
 * Transfers a zone by AXFR over TCP (RFC 5936): one query, then framed messages up to the closing SOA.
 * Any failure is a ZoneTransferError whose message, after the server's address, says what went wrong:
 * no connection, no end within the timeout, a refusal, a stream that is not a transfer of this zone, or
 * a zone with nothing but its SOA.
 */
export async function transferZone(request: TransferRequest): Promise<TransferredZone> {
  const origin = modelName(request.zone);
  const where = formatHostPort({ host: request.host, port: request.port });
  const connection: { socket?: net.Socket; finished?: boolean } = {};
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ZoneTransferError(
            'timeout',
            `The nameserver at ${where} did not complete the transfer within ${request.timeoutMs} ms`,
          ),
        ),
      request.timeoutMs,
    );
  });
  const transfer = async (): Promise<TransferStream> => {
    const address = await checkedServer(request, request.gate);
    if (connection.finished) throw new ZoneTransferError('timeout', 'abandoned after the timeout');
    const queryId = randomInt(0x10000);
    return new Promise<TransferStream>((resolve, reject) => {
      const stream = new TransferStream(where, origin, queryId, request.maxRecords ?? 100_000);
      const reader = new FrameReader();
      const conn = net.connect({ host: address, port: request.port });
      connection.socket = conn;
      conn.on('connect', () =>
        conn.write(frame(encode({ type: 'query', id: queryId, questions: [{ name: origin, type: 'AXFR', class: 'IN' }] }))),
      );
      conn.on('data', (chunk: Buffer) => {
        try {
          if (reader.push(chunk).some((message) => stream.take(message))) resolve(stream);
        } catch (err) {
          reject(err);
        }
      });
      conn.on('error', (err: NodeJS.ErrnoException) => {
        const why = err.code === 'ECONNREFUSED' ? 'refused the connection' : `could not be reached (${err.code ?? err.message})`;
        reject(new ZoneTransferError('unreachable', `The nameserver at ${where} ${why}`));
      });
      conn.on('close', () =>
        reject(new ZoneTransferError('malformed', `The nameserver at ${where} closed the connection before the transfer ended`)),
      );
    });
  };
  try {
    const stream = await Promise.race([transfer(), timedOut]);
    if (stream.records.length < 2)
      throw new ZoneTransferError('empty', `The nameserver at ${where} sent an empty zone for ${origin}`);
    return {
      records: stream.records,
      skipped: [...stream.skippedTypes.values()].reduce((a, b) => a + b, 0),
      skippedTypes: [...stream.skippedTypes.keys()].sort(),
    };
  } finally {
    connection.finished = true;
    clearTimeout(timer);
    connection.socket?.destroy();
  }
}
