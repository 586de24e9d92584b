import fs from 'node:fs';
import net from 'node:net';
import { Duplex } from 'node:stream';
import type { MachineConsole } from '../driver.ts';

/** How much of the console is kept to replay on attach. */
export const SCREEN_BYTES = 64 * 1024;

/** The last `bytes` of a file, or nothing when it is missing. */
export function fileTail(file: string, bytes: number): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const tail = Buffer.alloc(length);
    fs.readSync(fd, tail, 0, length, size - length);
    return tail;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A machine's serial port, through the one connection its socket takes: what it prints is kept
 * (the last SCREEN_BYTES) and sent to every attached stream; what an attached stream is written is typed in.
 */
export class SerialConsole implements MachineConsole {
  #socket: net.Socket;
  #chunks: Buffer[] = [];
  #length = 0;
  #streams = new Set<Duplex>();
  /** Sees everything the console prints, as it comes. */
  onOutput: (chunk: Buffer) => void = () => {};

  private constructor(socket: net.Socket, seed: Buffer) {
    this.#socket = socket;
    this.#keep(seed);
    socket.on('data', (chunk: Buffer) => {
      this.#keep(chunk);
      for (const stream of this.#streams) stream.push(chunk);
      this.onOutput(chunk);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      for (const stream of this.#streams) stream.push(null);
      this.#streams.clear();
    });
  }

  /** Connects to the serial socket; `seed` is the screen so far (the tail of the console log, for a machine adopted). */
  static async connect(socketPath: string, seed: Buffer): Promise<SerialConsole> {
    const socket = net.createConnection(socketPath);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new SerialConsole(socket, seed);
  }

  #keep(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    while (this.#chunks.length > 1 && this.#length - (this.#chunks[0]?.length ?? 0) >= SCREEN_BYTES) {
      this.#length -= this.#chunks.shift()?.length ?? 0;
    }
  }

  screen(): Buffer {
    const all = Buffer.concat(this.#chunks);
    return all.subarray(Math.max(0, all.length - SCREEN_BYTES));
  }

  attach(): Duplex {
    const socket = this.#socket;
    const streams = this.#streams;
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        if (socket.destroyed) callback();
        else socket.write(chunk, () => callback());
      },
      destroy(error, callback) {
        streams.delete(stream);
        callback(error);
      },
    });
    if (socket.destroyed) stream.push(null);
    else streams.add(stream);
    return stream;
  }

  /** Ends the attached streams and lets go of the socket (the machine keeps running). */
  close(): void {
    this.#socket.destroy();
  }
}
