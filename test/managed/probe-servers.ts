import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { TestContext } from 'node:test';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from './self-signed-cert.ts';

export interface WebServer {
  url: string;
  /** What the next requests get. */
  answer: { status: number; body: string; headers?: Record<string, string> };
  /** While set, requests wait for it before they are answered. */
  hold: Promise<void> | null;
  /** Requests being answered now, and the most at once so far. */
  inFlight: number;
  mostInFlight: number;
  requests: number;
  close(): Promise<void>;
}

/** A web server on 127.0.0.1 whose answers a test sets. */
export async function startWebServer(t: TestContext): Promise<WebServer> {
  const server = http.createServer();
  const web: WebServer = {
    url: '',
    answer: { status: 200, body: 'all systems healthy' },
    hold: null,
    inFlight: 0,
    mostInFlight: 0,
    requests: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', async (_req, res) => {
    web.requests += 1;
    web.inFlight += 1;
    web.mostInFlight = Math.max(web.mostInFlight, web.inFlight);
    if (web.hold) await web.hold;
    web.inFlight -= 1;
    const { status, body, headers } = web.answer;
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  web.url = `http://127.0.0.1:${port}`;
  t.after(() => web.close());
  return web;
}

/** A TCP server on 127.0.0.1 that accepts and closes connections; `close()` makes its port refuse. */
export async function startTcpServer(t: TestContext): Promise<{ port: number; close(): Promise<void>; listen(): Promise<void> }> {
  let server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const listen = async () => {
    server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  };
  t.after(() => close().catch(() => {}));
  return { port, close: () => close(), listen };
}

/** A port on 127.0.0.1 nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SilentServer {
  port: number;
  /** Connections held open now, and the most at once so far. */
  open: number;
  mostOpen: number;
  /** Drops every connection held (each probe waiting there ends at once) and stops listening. */
  close(): void;
}

/** A server on 127.0.0.1 that accepts connections and never answers (an HTTP request there waits for its timeout). */
export async function startSilentServer(t: TestContext): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    silent.open = sockets.size;
    silent.mostOpen = Math.max(silent.mostOpen, sockets.size);
    socket.on('close', () => {
      sockets.delete(socket);
      silent.open = sockets.size;
    });
    socket.on('error', () => {});
  });
  const silent: SilentServer = {
    port: 0,
    open: 0,
    mostOpen: 0,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  silent.port = (server.address() as net.AddressInfo).port;
  t.after(() => silent.close());
  return silent;
}

/** A port that accepts connections and never answers. */
export async function silentPort(t: TestContext): Promise<number> {
  return (await startSilentServer(t)).port;
}

/**
 * A web server on 127.0.0.1 that answers 200 at once, then sends its body a byte every `everyMs`,
 * `bytes` bytes in all (never a probe's expected text).
 */
export async function startTrickleServer(t: TestContext, everyMs: number, bytes: number): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    let sent = 0;
    const timer = setInterval(() => {
      res.write('.');
      sent += 1;
      if (sent >= bytes) {
        clearInterval(timer);
        res.end();
      }
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A port on 127.0.0.1 that accepts connections and resets each once it has read something (a TCP RST). */
export async function resettingPort(t: TestContext): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.resetAndDestroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/** An https server on 127.0.0.1 with a self-signed certificate (no probe trusts it) answering 200. */
export async function startSelfSignedServer(t: TestContext): Promise<string> {
  const server = https.createServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (_req, res) => res.end('healthy'));
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}
