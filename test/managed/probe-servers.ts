import http from 'node:http';
import net from 'node:net';
import type { TestContext } from 'node:test';

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

/** A port that accepts connections and never answers (an HTTP request there waits for its timeout). */
export async function silentPort(t: TestContext): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as net.AddressInfo).port;
}
