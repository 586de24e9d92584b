/** A WebSocket client that keeps what it received, as text, and whether every message came in a binary frame. */
export function connectConsole(url: string, protocols: string[] = []) {
  const socket = new WebSocket(url, protocols);
  socket.binaryType = 'arraybuffer';
  let received = '';
  let allBinary = true;
  const waiters = new Set<() => void>();
  socket.onmessage = (event: MessageEvent) => {
    if (typeof event.data === 'string') allBinary = false;
    received += typeof event.data === 'string' ? event.data : Buffer.from(event.data as ArrayBuffer).toString();
    for (const check of waiters) check();
  };
  const opened = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error('the handshake failed'));
  });
  const closed = new Promise<CloseEvent>((resolve) => {
    socket.onclose = resolve;
  });
  return {
    socket,
    opened,
    closed,
    received: () => received,
    allBinary: () => allBinary,
    /** Resolves once what was received (from the `from`th character on) contains `text`. */
    waitFor(text: string, ms = 5000, from = 0): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${JSON.stringify(text)} in ${JSON.stringify(received.slice(from))}`)),
          ms,
        );
        const check = () => {
          if (!received.includes(text, from)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}
