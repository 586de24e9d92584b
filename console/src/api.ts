import { accessToken, refreshTokens } from './auth.ts';
import { FIRST_READ_MAX_AGE_MS, pageRequest, requestKey, WHOLE_LIST_PAGE } from './page-requests.ts';

/** One item of the API's error envelope: `field` names what was wrong, when it is one field. */
export interface FieldError {
  field?: string;
  reason: string;
}

/** Whether an error's field is `field` or an item or member of it. */
export function namesField(errorField: string | undefined, field: string): boolean {
  return errorField === field || (errorField?.startsWith(`${field}[`) ?? false) || (errorField?.startsWith(`${field}.`) ?? false);
}

export class ApiError extends Error {
  readonly status: number;
  readonly errors: FieldError[];
  constructor(status: number, errors: FieldError[]) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; ') || `Request failed (${status})`);
    this.status = status;
    this.errors = errors;
  }
  /** The reasons given for `field`, or for an item of it (`authorized_keys[1]`). */
  about(field: string): string[] {
    return this.errors.filter((e) => namesField(e.field, field)).map((e) => e.reason);
  }
}

/** Raised when no token works any more: the console shows the sign-in. */
export class SignedOut extends Error {}

export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

function signedOut(): SignedOut {
  for (const listener of signedOutListeners) listener();
  return new SignedOut('Signed out: sign in again');
}

/** The answer first-reads.ts already asked for, once: the same GET, with the same filter and token, sent moments ago. */
function firstRead(method: string, path: string, headers: Record<string, string>, token: string): Promise<Response> | undefined {
  const reads = window.cumuloFirstReads;
  if (method !== 'GET' || !reads) return undefined;
  const key = requestKey(path, headers['x-filter']);
  const read = reads.get(key);
  reads.delete(key);
  const fresh = read !== undefined && performance.now() - read.sentAt <= FIRST_READ_MAX_AGE_MS;
  return fresh && read.token === token ? read.answer : undefined;
}

/** The reads in flight, each with its path (no query): a delete cancels those of what it deletes. */
const readsInFlight = new Map<AbortController, string>();

/**
 * Cancels the reads in flight of the object at `path` and of its parts: sent before its delete, they
 * could reach the server after it and only find it gone (a 404 the page would show as it leaves).
 */
function cancelReadsOf(path: string): void {
  for (const [controller, read] of readsInFlight) {
    if (read === path || read.startsWith(`${path}/`)) controller.abort();
  }
}

/** Whether a call failed only because it was cancelled (cancelReadsOf): nothing to show. */
export function isCancelled(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}

async function fetchApi(method: string, path: string, init: RequestInit): Promise<Response> {
  if (method !== 'GET') return fetch(`/v4${path}`, { method, ...init });
  const controller = new AbortController();
  readsInFlight.set(controller, path.split('?')[0] ?? path);
  try {
    return await fetch(`/v4${path}`, { method, ...init, signal: controller.signal });
  } finally {
    readsInFlight.delete(controller);
  }
}

async function send(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  retried = false,
): Promise<Response> {
  const token = await accessToken();
  if (!token) throw signedOut();
  if (method === 'DELETE') cancelReadsOf(path);
  const res =
    (await firstRead(method, path, headers, token)) ??
    (await fetchApi(method, path, {
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
  if (res.status === 401 && !retried) {
    const renewed = await refreshTokens();
    if (!renewed) throw signedOut();
    return send(method, path, body, headers, true);
  }
  return res;
}

/** Calls the v4 API as the signed-in user; an error answer throws ApiError with its envelope. */
export async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await send(method, path, body, headers);
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as unknown) : {};
  if (!res.ok) throw new ApiError(res.status, (parsed as { errors?: FieldError[] }).errors ?? []);
  return parsed as T;
}

export const api = {
  get: <T>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
  post: <T>(path: string, body: unknown = {}) => call<T>('POST', path, body),
  put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
  del: (path: string) => call<object>('DELETE', path),
};

/** One page of a list, filtered and ordered with X-Filter. */
export function getPage<T>(path: string, page: number, filter?: Record<string, unknown>, pageSize = 25): Promise<Page<T>> {
  const request = pageRequest(path, page, filter, pageSize);
  return api.get<Page<T>>(request.url, request.headers);
}

/** Every item of a short list (regions, types): the pages one after the other. */
export async function getAll<T>(path: string, filter?: Record<string, unknown>): Promise<T[]> {
  const first = await getPage<T>(path, 1, filter, WHOLE_LIST_PAGE);
  const rest = [];
  for (let p = 2; p <= first.pages; p++) rest.push(getPage<T>(path, p, filter, WHOLE_LIST_PAGE));
  return [first, ...(await Promise.all(rest))].flatMap((page) => page.data);
}

/** PUTs a file to an upload URL, reporting the bytes sent as they go (fetch cannot tell upload progress). */
export function uploadFile(url: string, file: Blob, onProgress: (sent: number, total: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let errors: FieldError[] = [];
      try {
        errors = (JSON.parse(xhr.responseText) as { errors?: FieldError[] }).errors ?? [];
      } catch {
        // Not the envelope: the status says enough.
      }
      reject(new ApiError(xhr.status, errors));
    };
    xhr.onerror = () => reject(new Error('The upload was interrupted'));
    xhr.send(file);
  });
}
