/** Pino's level numbers by name, for the levels a short line names (info is the ordinary one and goes unnamed). */
const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the short form shows its own way. */
const SHOWN_APART = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'err']);
/** A longer list shows as its first and last item and its length: a terminal line, not a record. */
const LIST_SHOWN = 3;

type Entry = Record<string, unknown>;

function record(value: unknown): Entry | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entry) : null;
}

/** `15:04:05`, local time, as a person at the terminal reads the clock. */
function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value) && value.length > LIST_SHOWN) {
    return `[${fieldValue(value[0])},…,${fieldValue(value.at(-1))}](${value.length})`;
  }
  return JSON.stringify(value) ?? String(value);
}

/** An answered request: `15:04:05 GET /v4/regions 200 3.1ms` (the URL as the request serializer redacted it). */
function requestLine(time: string, entry: Entry): string | null {
  const req = record(entry.req);
  const res = record(entry.res);
  if (entry.msg !== 'request completed' || !req || !res) return null;
  const ms = typeof entry.responseTime === 'number' ? ` ${entry.responseTime.toFixed(1)}ms` : '';
  return `${time} ${String(req.method)} ${String(req.url)} ${String(res.statusCode)}${ms}`;
}

/**
 * One log entry (a pino JSON line, parsed) as a short line for a person: the time, the level unless
 * it is info, the message and the other fields as `name=value`; an error's stack follows, indented.
 */
export function shortLogLine(entry: Entry): string {
  const time = clock(entry.time);
  const request = requestLine(time, entry);
  if (request !== null) return request;
  const level = typeof entry.level === 'number' ? LEVEL_NAMES[entry.level] : undefined;
  const fields = Object.entries(entry)
    .filter(([name]) => !SHOWN_APART.has(name))
    .map(([name, value]) => `${name}=${fieldValue(value)}`);
  const err = record(entry.err);
  const stack = typeof err?.stack === 'string' ? err.stack : undefined;
  if (err && !stack) fields.push(`err=${fieldValue(err.message ?? err)}`);
  const head = [time, level, typeof entry.msg === 'string' ? entry.msg : undefined, ...fields]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
  return stack ? `${head}\n${stack.replace(/^/gm, '    ')}` : head;
}
