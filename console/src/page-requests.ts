/**
 * How the console asks for pages of a list, and what its first page asks for: one place for both, so
 * that the reads started before the console runs (first-reads.ts) are the very ones its pages make.
 * Nothing here may import the rest of the console: first-reads.ts is built from it alone.
 */

export interface PageRequest {
  /** The path under /v4, with its query. */
  url: string;
  headers: Record<string, string>;
  /** What tells two requests apart: the address and the filter. */
  key: string;
}

export type Order = { by: string; order: 'asc' | 'desc' };

/** Items per page of a list read whole (regions, types, tags). */
export const WHOLE_LIST_PAGE = 100;

/** The nodes list (the console's home) in label order at first. */
export const NODES_ORDER: Order = { by: 'label', order: 'asc' };

export function requestKey(url: string, filter: string | undefined): string {
  return filter ? `${url} ${filter}` : url;
}

/** A list filter with its order (`+order_by`, `+order`), as X-Filter carries them. */
export function withOrder(
  filter: Record<string, unknown> | undefined,
  order: Order | undefined,
): Record<string, unknown> | undefined {
  return order ? { ...filter, '+order_by': order.by, '+order': order.order } : filter;
}

/** One page of a list, filtered and ordered with X-Filter. */
export function pageRequest(path: string, page: number, filter?: Record<string, unknown>, pageSize = 25): PageRequest {
  const sep = path.includes('?') ? '&' : '?';
  const url = `${path}${sep}page=${page}&page_size=${pageSize}`;
  const xFilter = filter && Object.keys(filter).length > 0 ? JSON.stringify(filter) : undefined;
  return { url, headers: xFilter ? { 'x-filter': xFilter } : {}, key: requestKey(url, xFilter) };
}

/** The newest events, where the events feed starts. */
export function eventsRequest(): PageRequest {
  return pageRequest('/account/events', 1, { '+order_by': 'id', '+order': 'desc' });
}

/** What a page opened at `route` (the address after `#/`) reads first: the profile, and the home's lists. */
export function firstReads(route: string): PageRequest[] {
  const profile = { url: '/profile', headers: {}, key: '/profile' };
  if (route !== '' && route !== 'nodes') return [profile];
  return [
    profile,
    pageRequest('/node/instances', 1, withOrder(undefined, NODES_ORDER)),
    pageRequest('/regions', 1, undefined, WHOLE_LIST_PAGE),
    pageRequest('/tags', 1, undefined, WHOLE_LIST_PAGE),
  ];
}

/** A read first-reads.ts started before the console ran, with the token it was sent with. */
export interface FirstRead {
  token: string;
  answer: Promise<Response>;
  /** When it was sent (performance.now()). */
  sentAt: number;
}

/**
 * How old a first read may be and still be taken: the first page takes its reads as it renders, well
 * within this; a page opened later (the read never taken) reads afresh rather than show the load's.
 */
export const FIRST_READ_MAX_AGE_MS = 5000;

declare global {
  interface Window {
    /** The reads first-reads.ts started, by request (`requestKey`); absent where it did not run. */
    cumuloFirstReads?: Map<string, FirstRead>;
  }
}
