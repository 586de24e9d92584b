import { type Logger, pino } from 'pino';

/** How long a log line may wait in the buffer of a quiet server. */
const FLUSH_MS = 250;

/**
 * The service's log on standard output. Lines gather in a 4 KB buffer that is written off the
 * request path, at least every quarter second, and whatever is left when the process exits (pino
 * flushes it then): a busy server makes one write for many lines instead of one a line.
 */
export function stdoutLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  // Not once pino has ended the stream at exit: flushing an ended stream throws (`destroyed` is
  // sonic-boom's own flag, missing from its types).
  const ended = () => (destination as unknown as { destroyed: boolean }).destroyed;
  setInterval(() => {
    if (!ended()) destination.flush();
  }, FLUSH_MS).unref();
  return pino({ level }, destination);
}
