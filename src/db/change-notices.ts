import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';

/** The one PostgreSQL channel; a notice's payload is `<schema>:<topic>`, since schemas share a database's channels. */
const CHANNEL = 'cumulo_changes';
/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 1_000;

type Listener = () => void;

/**
 * Tells every process that shares a PostgreSQL database when something it may keep in memory
 * changed (a token revoked, a user changed), so that each forgets its copy: NOTIFY from the process
 * that changed it, LISTEN on one connection of its own in each process. The embedded database has
 * one process, which forgets its own copies itself: no notice goes anywhere.
 *
 * A listener also runs when its process loses the listening connection (it may have missed a
 * notice), and again once it listens anew.
 */
class PostgresNotices {
  #url: string;
  #schema: string | undefined;
  /** The schema this process's connections use, as the listening connection found it. */
  #schemaName = '';
  #listeners = new Map<string, Set<Listener>>();
  #client: pg.Client | null = null;
  #starting: Promise<void> | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;

  constructor(url: string, schema: string | undefined) {
    this.#url = url;
    this.#schema = schema;
  }

  subscribe(topic: string, listener: Listener): void {
    let set = this.#listeners.get(topic);
    if (!set) {
      set = new Set();
      this.#listeners.set(topic, set);
    }
    set.add(listener);
    this.#starting ??= this.#listen();
  }

  /** Resolves once the process listens (a notice sent after it reaches this process). */
  listening(): Promise<void> {
    return this.#starting ?? Promise.resolve();
  }

  #runAll(): void {
    for (const set of this.#listeners.values()) for (const listener of set) listener();
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.#url });
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#runAll();
      this.#listenLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      const colon = payload.lastIndexOf(':');
      if (payload.slice(0, colon) !== this.#schemaName) return;
      for (const listener of this.#listeners.get(payload.slice(colon + 1)) ?? []) listener();
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      this.#schemaName = rows[0]?.schema ?? this.#schema ?? 'public';
      await client.query(`listen ${CHANNEL}`);
      this.#client = client;
      if (this.#closed) await client.end();
      // Whatever changed while nobody listened is forgotten too.
      else this.#runAll();
    } catch {
      client.end().catch(() => {});
      this.#listenLater();
    }
  }

  #listenLater(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#starting = this.#listen();
    }, RECONNECT_MS);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    await this.#starting;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }
}

const notices = new WeakMap<Kysely<Database>, PostgresNotices>();

/** Called by whoever opens a PostgreSQL database (src/db/open.ts): `url` with its schema, as the pool connects. */
export function openNotices(db: Kysely<Database>, url: string, schema: string | undefined): { close(): Promise<void> } {
  const own = new PostgresNotices(url, schema);
  notices.set(db, own);
  return own;
}

/**
 * Runs `listener` whenever another process announces `topic` (and when notices may have been
 * missed). Nothing on the embedded database, where this process's own changes are all there are.
 */
export function onChange(db: Kysely<Database>, topic: string, listener: Listener): void {
  notices.get(db)?.subscribe(topic, listener);
}

/** Resolves once this process listens for changes, where it does (a test waits for it). */
export function listeningForChanges(db: Kysely<Database>): Promise<void> {
  return notices.get(db)?.listening() ?? Promise.resolve();
}

/** Tells the other processes that `topic` changed (on the database as opened, after the change has committed). */
export async function announceChange(db: Kysely<Database>, topic: string): Promise<void> {
  if (!notices.has(db)) return;
  await sql`select pg_notify(${CHANNEL}, current_schema() || ':' || ${topic})`.execute(db);
}
