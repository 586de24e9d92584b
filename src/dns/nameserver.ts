import dgram from 'node:dgram';
import net from 'node:net';
import type { Logger } from 'pino';
import { respond } from './respond.ts';
import { type TcpConnection, TcpConnections } from './tcp-connections.ts';
import { FrameReader, frame } from './tcp-frames.ts';
import type { ZoneSource } from './zone.ts';

export interface NameserverOptions {
  source: ZoneSource;
  log: Logger;
  /**
   * A TCP connection with nothing sent either way for this long is closed (RFC 7766 6.2.3), and so is
   * one whose answer the client does not read for this long.
   */
  tcpIdleMs?: number;
  /** A query over TCP must arrive whole within this long of its first byte, or the connection is closed. */
  tcpMessageMs?: number;
  /** TCP connections open at once; past it the one waiting longest without a query makes room (or, all busy, the new one is closed). */
  maxTcpConnections?: number;
  /** TCP connections open at once from one address; more are closed as they come. */
  maxTcpConnectionsPerAddress?: number;
  /** The largest query accepted over TCP; a longer one closes the connection. */
  maxTcpQueryBytes?: number;
  /** Queries being answered at once; UDP queries past it are dropped (the client asks again). */
  maxInFlight?: number;
}

export interface BoundPorts {
  host: string;
  udpPort: number;
  tcpPort: number;
}

/** With port 0, how many free TCP ports are tried before one is also free for UDP. */
const BIND_ATTEMPTS = 10;

function listenTcp(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function bindUdp(socket: dgram.Socket, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: host, port, exclusive: true }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

/**
 * Writes the messages in order, waiting for the socket to drain between them when it asks to; a client
 * that reads nothing for `stallMs` is cut off.
 */
async function writeAll(socket: net.Socket, messages: Buffer[], stallMs: number): Promise<void> {
  for (const message of messages) {
    if (socket.destroyed) return;
    if (!socket.write(frame(message))) {
      await new Promise<void>((resolve) => {
        const stalled = setTimeout(() => socket.destroy(), stallMs);
        const done = () => {
          clearTimeout(stalled);
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
}

/**
 * An authoritative nameserver on UDP and TCP (one port for both, as clients expect when they retry a
 * truncated answer over TCP), answering from a ZoneSource. TCP carries several queries per connection,
 * answered in order; zone transfers go over TCP only.
 */
export class Nameserver {
  readonly #options: Required<NameserverOptions>;
  #udp: dgram.Socket | null = null;
  #tcp: net.Server | null = null;
  readonly #connections: TcpConnections;
  readonly #inFlight = new Set<Promise<void>>();
  #closing = false;
  #udpOpen = false;

  constructor(options: NameserverOptions) {
    this.#options = {
      tcpIdleMs: 5_000,
      tcpMessageMs: 3_000,
      maxTcpConnections: 100,
      maxTcpConnectionsPerAddress: 16,
      maxTcpQueryBytes: 16 * 1024,
      maxInFlight: 1000,
      ...options,
    };
    this.#connections = new TcpConnections(this.#options.maxTcpConnections, this.#options.maxTcpConnectionsPerAddress);
  }

  /** Starts listening; port 0 takes a free port, the same for UDP and TCP. */
  async listen(host: string, port: number): Promise<BoundPorts> {
    for (let attempt = 1; ; attempt++) {
      const tcp = net.createServer((socket) => this.#accept(socket));
      const tcpPort = await listenTcp(tcp, host, port);
      const udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
      try {
        await bindUdp(udp, host, tcpPort);
      } catch (err) {
        udp.close();
        await new Promise<void>((resolve) => tcp.close(() => resolve()));
        if (port !== 0 || attempt >= BIND_ATTEMPTS) throw err;
        continue;
      }
      udp.on('message', (message, peer) => this.#answerUdp(udp, message, peer));
      udp.on('error', (err) => this.#options.log.warn({ err }, 'DNS UDP socket error'));
      udp.on('close', () => {
        this.#udpOpen = false;
      });
      this.#tcp = tcp;
      this.#udp = udp;
      this.#udpOpen = true;
      return { host, udpPort: tcpPort, tcpPort };
    }
  }

  /** Whether it takes queries: listening on UDP and TCP, and not closing. */
  get listening(): boolean {
    return !this.#closing && this.#udpOpen && this.#tcp?.listening === true;
  }

  /** Stops taking queries, waits for those in flight (transfers included), then closes every socket. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const tcpClosed = new Promise<void>((resolve) => (this.#tcp ? this.#tcp.close(() => resolve()) : resolve()));
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    for (const { socket } of this.#connections) socket.end(() => socket.destroy());
    await tcpClosed;
    await new Promise<void>((resolve) => (this.#udp ? this.#udp.close(() => resolve()) : resolve()));
  }

  #track(work: Promise<void>): Promise<void> {
    const tracked = work.catch((err: unknown) => this.#options.log.error({ err }, 'DNS answer failed'));
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
    return tracked;
  }

  #answerUdp(udp: dgram.Socket, message: Buffer, peer: dgram.RemoteInfo): void {
    if (this.#closing || this.#inFlight.size >= this.#options.maxInFlight) return;
    const client = { address: peer.address, transport: 'udp' as const };
    void this.#track(
      respond(message, client, this.#options.source, this.#options.log).then((replies) => {
        for (const reply of replies) {
          udp.send(reply, peer.port, peer.address, (err) => {
            if (err) this.#options.log.debug({ err }, 'DNS UDP answer not sent');
          });
        }
      }),
    );
  }

  #accept(socket: net.Socket): void {
    socket.on('error', (err) => this.#options.log.debug({ err }, 'DNS TCP connection error'));
    const connection = this.#closing ? null : this.#connections.admit(socket, Date.now());
    if (!connection) {
      socket.destroy();
      return;
    }
    socket.on('close', () => this.#connections.remove(connection));
    socket.setTimeout(this.#options.tcpIdleMs, () => socket.destroy());
    const reader = new FrameReader(this.#options.maxTcpQueryBytes);
    // Set while part of a query has arrived: a client sending a byte now and then is not idle, but slow.
    let incomplete: NodeJS.Timeout | undefined;
    // The rest of a pipelined query is not read while an earlier one is answered: its time starts after.
    const tooSlow = () => {
      incomplete = setTimeout(() => (connection.answering ? tooSlow() : socket.destroy()), this.#options.tcpMessageMs);
    };
    socket.on('close', () => clearTimeout(incomplete));
    socket.on('data', (chunk: Buffer) => {
      if (this.#closing) return;
      let messages: Buffer[];
      try {
        messages = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      if (!reader.partial || messages.length > 0) {
        clearTimeout(incomplete);
        incomplete = undefined;
      }
      if (reader.partial && !incomplete) tooSlow();
      if (messages.length > 0) this.#answerTcp(connection, messages);
    });
  }

  /** One batch at a time: the answers keep the queries' order and a fast sender waits for them. */
  #answerTcp(connection: TcpConnection, messages: Buffer[]): void {
    const { socket } = connection;
    const client = { address: socket.remoteAddress ?? '', transport: 'tcp' as const };
    socket.pause();
    // A slow lookup is not idleness; a client that stops reading the answer is cut off by writeAll.
    socket.setTimeout(0);
    connection.answering = true;
    void this.#track(
      (async () => {
        for (const message of messages) {
          if (socket.destroyed) return;
          const replies = await respond(message, client, this.#options.source, this.#options.log);
          await writeAll(socket, replies, this.#options.tcpIdleMs);
        }
      })(),
    ).then(() => {
      connection.answering = false;
      connection.lastQueryAt = Date.now();
      if (this.#closing || socket.destroyed) return;
      socket.setTimeout(this.#options.tcpIdleMs);
      socket.resume();
    });
  }
}
