/**
 * What a probe tells the tenant: up, or down with one cause from a small fixed set. A library's
 * error text and the content of a response never reach a service, an issue or an event: they could
 * tell a tenant more about a host than whether it answers.
 */
export type ProbeCause =
  | 'connection refused'
  | 'connection reset'
  | 'timeout'
  | 'TLS handshake failed'
  | 'certificate not valid'
  | 'name not found'
  | 'address not allowed'
  | 'body not found'
  | 'unreachable'
  | `HTTP ${number}`;

export interface ProbeResult {
  up: boolean;
  /** Why the service counts as down; null when up. */
  problem: ProbeCause | null;
}

export const UP: ProbeResult = { up: true, problem: null };

export const down = (problem: ProbeCause): ProbeResult => ({ up: false, problem });

/** Node's and undici's error codes, by the cause they stand for. */
const CAUSE_BY_CODE: Readonly<Record<string, ProbeCause>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ENOTFOUND: 'name not found',
  EAI_AGAIN: 'name not found',
  EAI_NODATA: 'name not found',
  EAI_NONAME: 'name not found',
  EAI_FAIL: 'name not found',
  EPROTO: 'TLS handshake failed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate not valid',
  HOSTNAME_MISMATCH: 'certificate not valid',
  INVALID_CA: 'certificate not valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'certificate not valid',
  SELF_SIGNED_CERT_IN_CHAIN: 'certificate not valid',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not valid',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate not valid',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate not valid',
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: 'certificate not valid',
};

function causeOfCode(code: string): ProbeCause | null {
  const known = CAUSE_BY_CODE[code];
  if (known) return known;
  // OpenSSL's verification results (CERT_HAS_EXPIRED, CERT_NOT_YET_VALID, CERT_REVOKED, ...).
  if (code.startsWith('CERT_') || code.startsWith('ERR_TLS_CERT')) return 'certificate not valid';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS handshake failed';
  return null;
}

/** The errors an error stands on: its `cause` chain, and an AggregateError's parts (one per address tried). */
function* errorChain(err: unknown, depth = 0): Generator<unknown> {
  if (err === null || err === undefined || depth > 8) return;
  yield err;
  if (err instanceof AggregateError) for (const part of err.errors) yield* errorChain(part, depth + 1);
  if (err instanceof Error) yield* errorChain(err.cause, depth + 1);
}

/**
 * The cause a failed probe step stands for, read from error codes and names only (never from a
 * message); `unreachable` when none is known.
 */
export function causeOf(err: unknown): ProbeCause {
  for (const e of errorChain(err)) {
    if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return 'timeout';
    const code = (e as { code?: unknown }).code;
    const cause = typeof code === 'string' ? causeOfCode(code) : null;
    if (cause) return cause;
  }
  return 'unreachable';
}
