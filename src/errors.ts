export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  unavailable: 503,
  internal: 500,
};

export interface ErrorItem {
  field?: string;
  reason: string;
}

/** The one error type of the service; rendered as the standard `{"errors": [...]}` envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: ErrorItem[];
  constructor(code: ErrorCode, errors: ErrorItem[]) {
    // An answer to a client, not a fault of the service: no stack trace (capturing one costs more than the rest of a 401).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; '));
    Error.stackTraceLimit = limit;
    this.code = code;
    this.status = STATUS[code];
    this.errors = errors;
  }

  #body: string | undefined;

  /** The envelope as the response body, written once. */
  get body(): string {
    this.#body ??= JSON.stringify({ errors: this.errors });
    return this.#body;
  }
}

/** The one error factory. */
export const fail = {
  badRequest: (reason: string, field?: string) => new ApiError('bad_request', [item(reason, field)]),
  invalid: (errors: ErrorItem[]) => new ApiError('bad_request', errors),
  unauthorized: (reason = 'Invalid Token') => new ApiError('unauthorized', [{ reason }]),
  forbidden: (reason = 'Unauthorized') => new ApiError('forbidden', [{ reason }]),
  notFound: (reason = 'Not found') => new ApiError('not_found', [{ reason }]),
  conflict: (reason: string, field?: string) => new ApiError('conflict', [item(reason, field)]),
  methodNotAllowed: (reason = 'Method not allowed') => new ApiError('method_not_allowed', [{ reason }]),
  payloadTooLarge: (reason: string) => new ApiError('payload_too_large', [{ reason }]),
  unsupportedMediaType: (reason: string) => new ApiError('unsupported_media_type', [{ reason }]),
  uriTooLong: (reason: string) => new ApiError('uri_too_long', [{ reason }]),
  headersTooLarge: (reason: string) => new ApiError('headers_too_large', [{ reason }]),
  requestTimeout: (reason: string) => new ApiError('request_timeout', [{ reason }]),
  unavailable: (reason: string) => new ApiError('unavailable', [{ reason }]),
  internal: () =>
    new ApiError('internal', [
      { reason: 'Internal server error; the request id in the x-request-id header identifies it in the logs' },
    ]),
};

/**
 * The 400s of a request's independent checks, found together: each check that refuses adds its
 * errors, so that a request with several bad fields is told of each of them at once. A check that
 * fails otherwise (403, 404, 500) ends the request as it would alone.
 */
export class Refusals {
  readonly #errors: ErrorItem[] = [];

  /** The check's result, or undefined when it refused the request (its errors kept). */
  async check<T>(check: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await check();
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'bad_request') throw err;
      this.#errors.push(...err.errors);
      return undefined;
    }
  }

  /** Fails with every refusal found so far, if any. */
  throwIfAny(): void {
    if (this.#errors.length > 0) throw fail.invalid(this.#errors);
  }
}

function item(reason: string, field?: string): ErrorItem {
  return field === undefined ? { reason } : { field, reason };
}
