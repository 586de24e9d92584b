import { fail } from '../errors.ts';

/** A share of matching v4 requests that fail, and a delay added to each of them. */
export interface RequestFault {
  error_rate: number;
  latency_ms: number;
  /** `[METHOD ]<glob>` on the path after /v4, `*` matching any characters (`/` included); `*` alone matches all. */
  match: string;
  status: 500 | 503;
}

export interface FaultMatcher {
  method: string | null;
  path: RegExp;
}

const MATCH = /^(?:([A-Za-z]+)\s+)?(\*|\/\S*)$/;

/** Parses a fault's `match`; throws a 400 naming the field when it is not `[METHOD ]/glob` or `*`. */
export function parseFaultMatch(match: string): FaultMatcher {
  const m = MATCH.exec(match.trim());
  if (!m) throw fail.badRequest('Must be "[METHOD ]/path-glob" (e.g. "POST /node/*") or "*"', 'match');
  const glob = m[2] ?? '*';
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return { method: m[1] ? m[1].toUpperCase() : null, path: new RegExp(`^${body}$`) };
}

/** Whether a request (method, path after /v4, no query) falls under the fault. */
export function faultMatches(matcher: FaultMatcher, method: string, path: string): boolean {
  return (matcher.method === null || matcher.method === method) && matcher.path.test(path);
}
