import { useCallback, useEffect, useRef, useState } from 'react';
import { api, getPage, isCancelled, type Page } from './api.ts';
import { eventsRequest, type Order, withOrder } from './page-requests.ts';
import { currentPath, go } from './router.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads what `load` gives, again when `deps` change or `reload` is called. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the load depends on
  useEffect(() => {
    let live = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (err: Error) => {
        if (!live || isCancelled(err)) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, loading, reload };
}

/** Whether the browser shows the page: nothing is read in a hidden tab. */
function hidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden';
}

/** Calls `fn` when the tab is shown again. */
function onShown(fn: () => void): () => void {
  const listener = () => {
    if (!hidden()) fn();
  };
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
}

/**
 * Calls `fn` every `ms` while the page is shown, and at once when a hidden tab is shown again: for
 * what changes without an event (a zone's rendering, a probe's result, a graph).
 */
export function useEvery(ms: number, fn: () => void): void {
  useEffect(() => {
    const timer = setInterval(() => {
      if (!hidden() && !leaving) fn();
    }, ms);
    const off = onShown(fn);
    return () => {
      clearInterval(timer);
      off();
    };
  }, [ms, fn]);
}

/** A list's order: the API field and direction; `toggle` orders by a field, or turns the order round. */
export interface Sort {
  by: string;
  order: 'asc' | 'desc';
  toggle(by: string): void;
}

/**
 * A paged list with its page number and order (`+order_by`, sent with the filter); a new filter or
 * order goes back to page 1.
 */
export function usePaged<T>(path: string, filter?: Record<string, unknown>, initial?: { by: string; order?: 'asc' | 'desc' }) {
  const [page, setPage] = useState(1);
  const [order, setOrder] = useState<Order | undefined>(initial && { by: initial.by, order: initial.order ?? 'asc' });
  const full = withOrder(filter, order);
  const key = JSON.stringify(full ?? {});
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filter's text stands for the filter
  useEffect(() => setPage(1), [key, path]);
  const loaded = useLoad<Page<T>>(() => getPage<T>(path, page, full), [path, page, key]);
  const sort: Sort = {
    by: order?.by ?? '',
    order: order?.order ?? 'asc',
    toggle: (by) => setOrder((now) => ({ by, order: now?.by === by && now.order === 'asc' ? 'desc' : 'asc' })),
  };
  return { ...loaded, page, setPage, sort };
}

export interface ApiEvent {
  id: number;
  action: string;
  created: string;
  status: string;
  username: string | null;
  entity: { id: number; label: string; type: string; url: string } | null;
  /** The other object an event is about (the node a clone goes to); its id may come as text. */
  secondary_entity: { id: number | string; label: string; type: string; url: string } | null;
  percent_complete: number | null;
}

type EventListener = (events: ApiEvent[]) => void;
const listeners = new Set<EventListener>();
let lastId: number | null = null;
/** What each recent event looked like when last read: a change of status or progress is news too. */
const seen = new Map<number, string>();
let timer: ReturnType<typeof setTimeout> | undefined;
/** One read at a time, however the tab comes and goes. */
let reading = false;

/** Reads the events feed every two seconds for what is new (and changed: an event's status moves on). */
async function poll(): Promise<void> {
  if (reading) return;
  reading = true;
  try {
    if (lastId === null) {
      const start = eventsRequest();
      const newest = await api.get<Page<ApiEvent>>(start.url, start.headers);
      lastId = newest.data[0]?.id ?? 0;
      for (const e of newest.data) seen.set(e.id, `${e.status}:${e.percent_complete}`);
    } else {
      const fresh = await api.get<Page<ApiEvent>>('/account/events?page_size=100', {
        'x-filter': JSON.stringify({ id: { '+gt': lastId - 25 }, '+order_by': 'id', '+order': 'asc' }),
      });
      const changed = fresh.data.filter((e) => seen.get(e.id) !== `${e.status}:${e.percent_complete}`);
      for (const e of fresh.data) seen.set(e.id, `${e.status}:${e.percent_complete}`);
      if (changed.length > 0) {
        lastId = Math.max(lastId, ...changed.map((e) => e.id));
        for (const listener of listeners) listener(changed);
      }
    }
  } catch {
    // Signed out or offline: the next round tries again.
  } finally {
    reading = false;
  }
  schedule();
}

/** The next read in two seconds while a page listens and the tab is shown; none otherwise. */
function schedule(): void {
  clearTimeout(timer);
  timer = listeners.size > 0 && !hidden() ? setTimeout(poll, 2000) : undefined;
}

// A tab shown again reads at once what happened while it was hidden.
if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (hidden()) {
      clearTimeout(timer);
      timer = undefined;
    } else if (listeners.size > 0 && timer === undefined) {
      void poll();
    }
  });
}

/** Calls `listener` with the events that are new, or whose status or progress moved, since the last read. */
export function useEvents(listener: EventListener): void {
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => {
    const wrapped: EventListener = (events) => {
      if (!leaving) ref.current(events);
    };
    listeners.add(wrapped);
    if (timer === undefined && !hidden()) void poll();
    return () => {
      listeners.delete(wrapped);
    };
  }, []);
}

/** Forgets what the events feed has read: the next user's feed starts afresh. */
export function forgetEvents(): void {
  clearTimeout(timer);
  timer = undefined;
  lastId = null;
  seen.clear();
}

/**
 * Whether the page is leaving because it deleted its own object: from the moment the delete is sent
 * until the next page has replaced it, news read late and timers re-read nothing (they would only
 * find the object, or its parts, missing). Every page's event and timer hooks check it. The address
 * changes a render before the page goes: news that comes in between still belongs to the old page.
 */
let leaving = false;

/** Called once a new page has replaced the last one (the shell's effect on each page change). */
export function arrived(): void {
  leaving = false;
}

/** Deletes the page's own object with `send`, then goes to `to`; a failed delete leaves the page as it was. */
export async function deleteAndLeave(send: () => Promise<unknown>, to: string): Promise<void> {
  leaving = true;
  try {
    await send();
  } catch (err) {
    leaving = false;
    throw err;
  }
  if (currentPath() === to) leaving = false;
  else go(to);
}
