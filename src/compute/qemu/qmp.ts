import net from 'node:net';

type QmpMessage = {
  return?: unknown;
  error?: { class: string; desc: string };
  event?: string;
  data?: Record<string, unknown>;
  QMP?: unknown;
};

/** How long a connection may take: a QMP socket serves one client, a second waits unanswered. */
const CONNECT_TIMEOUT_MS = 5_000;

/** A QEMU Machine Protocol connection: commands in order, one reply each; events are passed to `onEvent`. */
export class QmpClient {
  #socket: net.Socket;
  #buffer = '';
  #waiting: { resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
  #greeted: Promise<void>;
  #closed = false;
  onEvent: (event: string, data: Record<string, unknown>) => void = () => {};
  /** Called once when the connection ends (QEMU exited, or `close`). */
  onClose: () => void = () => {};

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    this.#greeted = new Promise((resolve, reject) => this.#waiting.push({ resolve: () => resolve(), reject }));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#receive(chunk));
    const fail = (error: Error) => {
      for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => {
      this.#closed = true;
      fail(new Error('the QMP connection closed'));
      this.onClose();
    });
  }

  static async connect(socketPath: string): Promise<QmpClient> {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => socket.destroy(new Error(`no QMP greeting on ${socketPath}`)), CONNECT_TIMEOUT_MS);
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const client = new QmpClient(socket);
      await client.#greeted;
      await client.execute('qmp_capabilities');
      return client;
    } catch (error) {
      socket.destroy();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  #receive(chunk: string): void {
    this.#buffer += chunk;
    for (let end = this.#buffer.indexOf('\n'); end !== -1; end = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, end).trim();
      this.#buffer = this.#buffer.slice(end + 1);
      if (line === '') continue;
      const message = JSON.parse(line) as QmpMessage;
      if (message.event !== undefined) {
        this.onEvent(message.event, message.data ?? {});
        continue;
      }
      const waiter = this.#waiting.shift();
      if (message.error !== undefined) waiter?.reject(new Error(`QMP: ${message.error.class}: ${message.error.desc}`));
      else waiter?.resolve(message.return);
    }
  }

  execute(command: string, args?: Record<string, unknown>): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the QMP connection closed'));
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(
        `${JSON.stringify(args === undefined ? { execute: command } : { execute: command, arguments: args })}\n`,
      );
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}
