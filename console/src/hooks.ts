import { useCallback, useEffect, useRef, useState } from 'react';
import { api, getPage, type Page } from './api.ts';

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
        if (!live) return;
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

/** Calls `fn` every `ms` while the page is shown: for what changes without an event (a zone's rendering, a probe's result). */
export function useEvery(ms: number, fn: () => void): void {
  useEffect(() => {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  }, [ms, fn]);
}

/** A paged list with its page number; a new filter goes back to page 1. */
export function usePaged<T>(path: string, filter?: Record<string, unknown>) {
  const [page, setPage] = useState(1);
  const key = JSON.stringify(filter ?? {});
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filter's text stands for the filter
  useEffect(() => setPage(1), [key, path]);
  const loaded = useLoad<Page<T>>(() => getPage<T>(path, page, filter), [path, page, key]);
  return { ...loaded, page, setPage };
}

export interface ApiEvent {
  id: number;
  action: string;
  created: string;
  status: string;
  username: string | null;
  entity: { id: number; label: string; type: string; url: string } | null;
  percent_complete: number | null;
}

type EventListener = (events: ApiEvent[]) => void;
const listeners = new Set<EventListener>();
let lastId: number | null = null;
/** What each recent event looked like when last read: a change of status or progress is news too. */
const seen = new Map<number, string>();
let timer: ReturnType<typeof setTimeout> | undefined;

/** Reads the events feed every two seconds for what is new (and changed: an event's status moves on). */
async function poll(): Promise<void> {
  try {
    if (lastId === null) {
      const newest = await getPage<ApiEvent>('/account/events', 1, { '+order_by': 'id', '+order': 'desc' }, 25);
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
  }
  // Reading goes on while a page listens, and stops with the last one.
  timer = listeners.size > 0 ? setTimeout(poll, 2000) : undefined;
}

/** Calls `listener` with the events that are new, or whose status or progress moved, since the last read. */
export function useEvents(listener: EventListener): void {
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => {
    const wrapped: EventListener = (events) => ref.current(events);
    listeners.add(wrapped);
    if (timer === undefined) void poll();
    return () => {
      listeners.delete(wrapped);
    };
  }, []);
}
