import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** Splits what a server wrote on one connection into responses (framed by Content-Length). */
export function parseResponses(data: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`an incomplete response: ${JSON.stringify(rest.toString('latin1'))}`);
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!status) throw new Error(`not a status line: ${statusLine}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] === undefined ? rest.length - end - 4 : Number(headers['content-length']);
    out.push({ status, headers, body: rest.subarray(end + 4, end + 4 + length).toString('utf8') });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

/**
 * Writes `request` as is on a new connection to the server at `base` and reads until the server
 * closes it: for what an HTTP client library would not send (malformed requests, HTTP/1.0). The
 * last request must be one the server closes the connection after.
 */
export function rawExchange(base: string, request: string | Buffer): Promise<RawResponse[]> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: Error & { code?: string }) => {
      // A server that closes while the rest of a refused request is unread resets the connection;
      // what it answered first has arrived by then.
      if (err.code !== 'ECONNRESET' || chunks.length === 0) reject(err);
    });
    socket.on('close', () => {
      try {
        resolve(parseResponses(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
    // Written without ending our side: Node's server drops requests still under way when a client half-closes.
    socket.setTimeout(15_000, () => socket.destroy(new Error('the server did not close the connection')));
    socket.write(request);
  });
}
