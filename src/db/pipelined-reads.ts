import type { Socket } from 'node:net';
import pg from 'pg';

interface Slot {
  client: pg.Client;
  ready: Promise<unknown>;
  inFlight: number;
  /** Set while the socket holds this turn's reads, until the turn's end writes them in one go. */
  corked: boolean;
}

/** pg keeps the socket on the client's connection, which its types leave out. */
function socketOf(client: pg.Client): Socket {
  return (client as unknown as { connection: { stream: Socket } }).connection.stream;
}

/**
 * Plain reads on PostgreSQL (src/db/direct-read.ts) sent on a few connections in pg's pipeline
 * mode: each query goes out without waiting for the answer to the one before it, so under load
 * many share one read of the socket, where a pooled connection takes one query, one write and one
 * read at a time. The reads of one event-loop turn leave in one write at its end (the socket is
 * corked until `setImmediate`): pg writes each query on its own, and each write wakes a server
 * process, which costs the writer more than the query's own work. A read goes to the connection
 * with the fewest in flight. One that fails or ends is replaced on the next read; the reads it had
 * in flight fail, as they would on a pooled connection. Only plain reads outside transactions run
 * here: a slow one delays those sent after it on its connection.
 */
export class PipelinedReads {
  readonly #config: pg.ClientConfig;
  readonly #setUp: (client: pg.Client) => void;
  readonly #slots: (Slot | null)[];
  #closed = false;

  constructor(config: pg.ClientConfig, connections: number, setUp: (client: pg.Client) => void) {
    this.#config = config;
    this.#setUp = setUp;
    this.#slots = Array.from({ length: connections }, () => null);
  }

  async query(text: string, values: readonly unknown[], arrays: boolean): Promise<unknown[]> {
    const slot = this.#pick();
    slot.inFlight++;
    try {
      await slot.ready;
      this.#holdWritesForTurn(slot);
      const result = arrays
        ? await slot.client.query({ text, values: values as unknown[], rowMode: 'array' })
        : await slot.client.query(text, values as unknown[]);
      return result.rows;
    } finally {
      slot.inFlight--;
    }
  }

  #holdWritesForTurn(slot: Slot): void {
    if (slot.corked) return;
    const socket = socketOf(slot.client);
    slot.corked = true;
    socket.cork();
    setImmediate(() => {
      slot.corked = false;
      socket.uncork();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const open = this.#slots.filter((slot) => slot !== null);
    this.#slots.fill(null);
    await Promise.all(open.map((slot) => slot.client.end().catch(() => {})));
  }

  #pick(): Slot {
    if (this.#closed) throw new Error('the database is closed');
    let best: Slot | undefined;
    for (let i = 0; i < this.#slots.length; i++) {
      const slot = this.#slots[i] ?? this.#open(i);
      if (!best || slot.inFlight < best.inFlight) best = slot;
    }
    return best as Slot;
  }

  #open(index: number): Slot {
    const client = new pg.Client({ ...this.#config, pipeline: true } as pg.ClientConfig);
    this.#setUp(client);
    const slot: Slot = { client, ready: client.connect(), inFlight: 0, corked: false };
    const drop = () => {
      if (this.#slots[index] === slot) this.#slots[index] = null;
    };
    slot.ready.catch(drop);
    client.on('error', drop);
    client.on('end', drop);
    this.#slots[index] = slot;
    return slot;
  }
}
