/** The largest DNS message TCP can carry: its two-byte length prefix (RFC 1035 4.2.2). */
export const MAX_TCP_MESSAGE = 65535;

/** An encoded message with the two-byte length prefix TCP needs. */
export function frame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(message.length);
  return Buffer.concat([prefix, message]);
}

/**
 * Splits a TCP byte stream into the DNS messages it carries, each after its two-byte length. A message
 * longer than `maxBytes` is refused with an error: the connection is to be dropped.
 */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0);
  readonly #maxBytes: number;

  constructor(maxBytes: number = MAX_TCP_MESSAGE) {
    this.#maxBytes = maxBytes;
  }

  /** Whether part of a message has arrived and the rest has not. */
  get partial(): boolean {
    return this.#pending.length > 0;
  }

  /** The messages completed by `chunk`. */
  push(chunk: Buffer): Buffer[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const messages: Buffer[] = [];
    while (this.#pending.length >= 2) {
      const length = this.#pending.readUInt16BE(0);
      if (length > this.#maxBytes) throw new Error(`a ${length}-byte message is over the ${this.#maxBytes}-byte limit`);
      if (this.#pending.length < 2 + length) break;
      messages.push(this.#pending.subarray(2, 2 + length));
      this.#pending = this.#pending.subarray(2 + length);
    }
    return messages;
  }
}
