import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { randomHex, systemRandom } from '../random.ts';
import type { Database } from './database.ts';

/**
 * The one PostgreSQL channel, which schemas share. A notice's payload is
 * `<schema>:<topic>:<change>:<sender>`; the answer of each process that heard it,
 * `<schema>:ack:<change>:<listener>`.
 */
const CHANNEL = 'cumulo_changes';
/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 1_000;
/** How long a change waits for the other processes' answers: a process that has not answered by then is stuck or gone. */
const ANSWER_WAIT_MS = 2_000;
/** A listening connection's application_name starts so: PostgreSQL itself lists the processes that listen. */
const LISTENER_NAME = 'cumulo-listener';

type Listener = () => void;

/**
 * Tells every process that shares a PostgreSQL database when something it may keep in memory
 * changed (a token revoked, a user changed), so that each forgets its copy: NOTIFY from the process
 * that changed it, LISTEN on one connection of its own in each process. The embedded database has
 * one process, which forgets its own copies itself: no notice goes anywhere.
 *
 * A listener also runs when its process loses the listening connection (it may have missed a
 * notice), and again once it listens anew.
 *
 * A change takes effect on the next request whichever process answers it: the process that made
 * it waits, before it answers, until every other process listening on the schema (as
 * pg_stat_activity lists them, by their connections' application_name) has run its listeners and
 * said so, or ANSWER_WAIT_MS has passed.
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
  /** This process, among the listeners. */
  readonly #id = randomHex(systemRandom, 8);
  /** Changes this process announced, by id: the listeners yet to answer, and what to call once none is. */
  #waiting = new Map<string, { pending: Set<string>; done: () => void }>();

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

  /** Whether a notice sent now reaches this process. */
  get heard(): boolean {
    return this.#client !== null;
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
      const [schema, topic, change, from] = (message.payload ?? '').split(':');
      if (schema !== this.#schemaName || !topic || !change || !from) return;
      if (topic === 'ack') {
        this.#answered(change, from);
        return;
      }
      if (from === this.#id) return;
      for (const listener of this.#listeners.get(topic) ?? []) listener();
      client.query('select pg_notify($1, $2)', [CHANNEL, `${schema}:ack:${change}:${this.#id}`]).catch(() => {});
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      this.#schemaName = rows[0]?.schema ?? this.#schema ?? 'public';
      await client.query(`listen ${CHANNEL}`);
      // Named once it listens: a process the others wait for is one that hears them.
      await client.query(`set application_name = '${this.#nameTag()}:${this.#id}'`);
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

  /** `cumulo-listener:<schema's tag>`: a schema's name may be longer than application_name keeps (63 bytes). */
  #nameTag(): string {
    return `${LISTENER_NAME}:${createHash('sha256').update(this.#schemaName).digest('hex').slice(0, 8)}`;
  }

  #answered(change: string, listener: string): void {
    const waiting = this.#waiting.get(change);
    if (!waiting) return;
    waiting.pending.delete(listener);
    if (waiting.pending.size === 0) waiting.done();
  }

  /** Announces `topic` (committed) and resolves once every other listening process has answered, or after ANSWER_WAIT_MS. */
  async announce(db: Kysely<Database>, topic: string): Promise<void> {
    this.#starting ??= this.#listen();
    await this.#starting;
    if (!this.#client) {
      // Not listening (PostgreSQL refused a connection a moment ago): tell the others, without waiting for answers.
      await sql`select pg_notify(${CHANNEL}, current_schema() || ${`:${topic}:${randomHex(systemRandom, 8)}:${this.#id}`})`.execute(
        db,
      );
      return;
    }
    const change = randomHex(systemRandom, 8);
    const { rows } = await sql<{ name: string }>`select application_name as name from pg_stat_activity
      where datname = current_database() and application_name like ${`${this.#nameTag()}:%`}`.execute(db);
    const pending = new Set(rows.map((r) => r.name.slice(r.name.lastIndexOf(':') + 1)).filter((id) => id !== this.#id));
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<void>((resolve) => {
      if (pending.size === 0) return resolve();
      this.#waiting.set(change, { pending, done: resolve });
      timer = setTimeout(resolve, ANSWER_WAIT_MS);
    });
    try {
      await sql`select pg_notify(${CHANNEL}, ${`${this.#schemaName}:${topic}:${change}:${this.#id}`})`.execute(db);
      await answered;
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(change);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#waiting.values()) waiting.done();
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

/**
 * Whether this process hears of other processes' changes now: always on the embedded database; on
 * PostgreSQL while its listening connection is up. What is kept in memory is kept only then.
 */
export function hearingChanges(db: Kysely<Database>): boolean {
  return notices.get(db)?.heard ?? true;
}

/** Resolves once this process listens for changes, where it does (a test waits for it). */
export function listeningForChanges(db: Kysely<Database>): Promise<void> {
  return notices.get(db)?.listening() ?? Promise.resolve();
}

/**
 * Tells the other processes that `topic` changed (on the database as opened, after the change has
 * committed), and resolves once each has forgotten its copies (or ANSWER_WAIT_MS has passed).
 */
export async function announceChange(db: Kysely<Database>, topic: string): Promise<void> {
  await notices.get(db)?.announce(db, topic);
}
