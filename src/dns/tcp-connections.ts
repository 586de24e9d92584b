import type net from 'node:net';

/** What the nameserver knows of one open TCP connection. */
export interface TcpConnection {
  socket: net.Socket;
  /** The peer's address, IPv4-mapped IPv6 written as IPv4. */
  address: string;
  /** Whether a query of it is being answered (it is then never closed to make room). */
  answering: boolean;
  /** When it last completed a query or opened (ms), for choosing whom to close first. */
  lastQueryAt: number;
}

/** The peer's address as counted: IPv4-mapped IPv6 as its IPv4 address. */
export function peerAddress(socket: net.Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The open TCP connections, with the caps RFC 7766 6.2.2 asks a server to keep so that a few clients
 * cannot hold every connection: at most `perAddress` from one address, at most `total` in all. When
 * the total is reached, the connection that has waited longest without a query being answered is
 * closed to admit the new one, so idle clients cannot keep others out.
 */
export class TcpConnections {
  readonly #open = new Set<TcpConnection>();
  readonly #byAddress = new Map<string, number>();
  readonly #total: number;
  readonly #perAddress: number;

  constructor(total: number, perAddress: number) {
    this.#total = total;
    this.#perAddress = perAddress;
  }

  get size(): number {
    return this.#open.size;
  }

  [Symbol.iterator](): IterableIterator<TcpConnection> {
    return this.#open.values();
  }

  /** Registers a new connection, or answers null when the caps leave no room for it. */
  admit(socket: net.Socket, now: number): TcpConnection | null {
    const address = peerAddress(socket);
    if ((this.#byAddress.get(address) ?? 0) >= this.#perAddress) return null;
    if (this.#open.size >= this.#total) {
      const victim = this.#longestWaiting();
      if (!victim) return null;
      this.remove(victim);
      victim.socket.destroy();
    }
    const connection: TcpConnection = { socket, address, answering: false, lastQueryAt: now };
    this.#open.add(connection);
    this.#byAddress.set(address, (this.#byAddress.get(address) ?? 0) + 1);
    return connection;
  }

  remove(connection: TcpConnection): void {
    if (!this.#open.delete(connection)) return;
    const left = (this.#byAddress.get(connection.address) ?? 1) - 1;
    if (left === 0) this.#byAddress.delete(connection.address);
    else this.#byAddress.set(connection.address, left);
  }

  #longestWaiting(): TcpConnection | null {
    let oldest: TcpConnection | null = null;
    for (const c of this.#open) if (!c.answering && (!oldest || c.lastQueryAt < oldest.lastQueryAt)) oldest = c;
    return oldest;
  }
}
