import { type DestinationStream, type Logger, pino } from 'pino';
import { shortLogLine } from './log-line.ts';

/** How long a log line may wait in the buffer of a quiet server. */
const FLUSH_MS = 250;

/** `json`: a JSON object a line, for machines; `pretty`: a short line for a person (src/log-line.ts). */
export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT when set; otherwise short lines for a terminal and JSON lines for anything else (a file, a pipe, a collector). */
export function logFormatFor(configured: LogFormat | undefined, output: { isTTY?: boolean }): LogFormat {
  return configured ?? (output.isTTY ? 'pretty' : 'json');
}

/**
 * Short lines written at once: a person is reading, and a terminal's few lines a second need no
 * buffer. Each JSON line pino makes is parsed again, which only a terminal's rate can afford.
 */
function prettyDestination(fd: 1 | 2): DestinationStream {
  const out = pino.destination({ dest: fd, sync: true });
  return {
    write(line: string) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        out.write(line);
        return;
      }
      out.write(`${shortLogLine(entry as Record<string, unknown>)}\n`);
    },
  };
}

/**
 * The service's log on standard output. JSON lines gather in a 4 KB buffer that is written off the
 * request path, at least every quarter second, and whatever is left when the process exits (pino
 * flushes it then): a busy server makes one write for many lines instead of one a line.
 */
export function stdoutLogger(level: string, format?: LogFormat): Logger {
  if (logFormatFor(format, process.stdout) === 'pretty') return pino({ level }, prettyDestination(1));
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  // Not once pino has ended the stream at exit: flushing an ended stream throws (`destroyed` is
  // sonic-boom's own flag, missing from its types).
  const ended = () => (destination as unknown as { destroyed: boolean }).destroyed;
  setInterval(() => {
    if (!ended()) destination.flush();
  }, FLUSH_MS).unref();
  return pino({ level }, destination);
}

/** The log of a `cumulo` command on standard error (its standard output carries the result), written at once. */
export function stderrLogger(level: string, format?: LogFormat): Logger {
  if (logFormatFor(format, process.stderr) === 'pretty') return pino({ level }, prettyDestination(2));
  return pino({ level }, pino.destination(2));
}
