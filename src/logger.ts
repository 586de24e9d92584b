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

/** What the line buffer gathers before it writes the lines in one piece. */
const CHUNK_CHARS = 16_384;

/**
 * Lines gathered in memory and written to `out` (sonic-boom, synchronously) as one chunk: when the
 * chunk is full, at least every quarter second, and at exit, so a line never waits in a write under
 * way when the process ends. sonic-boom gathers lines itself, but measures its whole pending buffer
 * on every line it is given, which at a line a request cost 5 µs a line.
 */
class LineBuffer implements DestinationStream {
  #out: ReturnType<typeof pino.destination>;
  #lines: string[] = [];
  #chars = 0;

  constructor(out: ReturnType<typeof pino.destination>) {
    this.#out = out;
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= CHUNK_CHARS) this.flushSync();
  }

  flushSync(): void {
    if (this.#lines.length === 0) return;
    const chunk = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    // Not once the stream has ended (`destroyed` is sonic-boom's own flag, missing from its types).
    if (!(this.#out as unknown as { destroyed: boolean }).destroyed) this.#out.write(chunk);
  }

  /** pino's `logger.flush(callback)`. */
  flush(done?: (error?: Error) => void): void {
    this.flushSync();
    done?.();
  }
}

/**
 * The service's log on standard output: JSON lines, gathered and written many at a time (a busy
 * server makes one write for many lines instead of one a line), at least every quarter second, and
 * whatever is left when the process exits.
 */
export function stdoutLogger(level: string, format?: LogFormat): Logger {
  if (logFormatFor(format, process.stdout) === 'pretty') return pino({ level }, prettyDestination(1));
  const lines = new LineBuffer(pino.destination({ dest: 1, sync: true }));
  setInterval(() => lines.flushSync(), FLUSH_MS).unref();
  process.once('exit', () => lines.flushSync());
  return pino({ level }, lines);
}

/** The log of a `cumulo` command on standard error (its standard output carries the result), written at once. */
export function stderrLogger(level: string, format?: LogFormat): Logger {
  if (logFormatFor(format, process.stderr) === 'pretty') return pino({ level }, prettyDestination(2));
  return pino({ level }, pino.destination(2));
}
