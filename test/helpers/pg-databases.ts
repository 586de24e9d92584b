import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/db/open.ts';
import { processAlive } from '../../src/processes.ts';
import { randomHex, systemRandom } from '../../src/random.ts';

/*
 * Each PostgreSQL test app gets a database of its own, copied from a template that already holds
 * every migration (migrating a fresh schema takes about 300 ms). The template is named by a hash of
 * the migrations, so a changed migration makes a new one; the first test process to need it builds
 * it, under a lock. A database a test is done with is emptied for the next test of the process
 * rather than dropped: a copy and a drop cost the server about 0.4 s of CPU, emptying a few ms.
 */

const DB_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'db');
const TEMPLATE_PREFIX = 'cumulo_tpl_';
/** pg_advisory_lock key: any number the tests use for nothing else. */
const TEMPLATE_LOCK = 724_301;

/** A hash of what makes the schema: the migration runner and every migration's text. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  const files = [
    path.join(DB_DIR, 'migrate.ts'),
    ...fs
      .readdirSync(path.join(DB_DIR, 'migrations'))
      .sort()
      .map((f) => path.join(DB_DIR, 'migrations', f)),
  ];
  for (const file of files) hash.update(file).update(fs.readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/** The URL with another database in its path (its options kept). */
function urlOf(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withClient<T>(base: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

let template: Promise<string> | null = null;

/** The migrated template's name, built once (by whichever test process comes first); older templates are dropped. */
function migratedTemplate(base: string): Promise<string> {
  template ??= withClient(base, async (client) => {
    const name = `${TEMPLATE_PREFIX}${migrationsHash()}`;
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await client.query(`drop database if exists ${building} with (force)`);
        await client.query(`create database ${building}`);
        const database = openDatabase({ databaseUrl: urlOf(base, building), dataDir: '' });
        try {
          await migrateToLatest(database.db, database.kind);
        } finally {
          await database.close();
        }
        await client.query(`alter database ${building} rename to ${name}`);
        const old = await client.query<{ datname: string }>(
          `select datname from pg_database where datname like '${TEMPLATE_PREFIX}%' and datname <> $1`,
          [name],
        );
        for (const row of old.rows) await client.query(`drop database if exists ${row.datname}`).catch(() => undefined);
      }
      return name;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return template;
}

/** Drops the test databases that processes gone left behind (a process ends with those it emptied). */
async function dropLeftovers(base: string): Promise<void> {
  await withClient(base, async (client) => {
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname ~ '^t_[0-9]+_'");
    for (const { datname } of rows) {
      const pid = Number(datname.split('_')[1]);
      if (!processAlive(pid)) await client.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    }
  });
}

async function createFromTemplate(base: string): Promise<string> {
  const from = await migratedTemplate(base);
  // The creating process's pid in the name: what a process leaves behind is known by it (dropLeftovers).
  const name = `t_${process.pid}_${randomHex(systemRandom, 6)}`;
  await withClient(base, (client) => client.query(`create database ${name} template ${from} strategy wal_log`));
  return name;
}

/** The tables and sequences of a database's public schema, as one text. */
const SHAPE = `select coalesce(string_agg(kind || ' ' || name, ',' order by kind, name), '') as shape from (
  select 'table' as kind, tablename::text as name from pg_tables where schemaname = 'public'
  union all select 'sequence', sequencename::text from pg_sequences where schemaname = 'public') objects`;

/** The template's shape, and the statements that bring a database of that shape back to it: every row deleted (but the migrations'), every sequence restarted. */
let emptying: Promise<{ shape: string; sql: string }> | null = null;

function emptyingOf(base: string): Promise<{ shape: string; sql: string }> {
  emptying ??= migratedTemplate(base).then((template) =>
    withClient(urlOf(base, template), async (client) => {
      const shape = (await client.query<{ shape: string }>(SHAPE)).rows[0]?.shape ?? '';
      const names = shape.split(',').map((entry) => entry.split(' ') as [string, string]);
      const statements = [
        // Superuser only (the tests' connections are): foreign keys are not checked while the rows go.
        'set session_replication_role = replica',
        ...names
          .filter(([kind, name]) => kind === 'table' && !name.startsWith('kysely_'))
          .map(([, name]) => `delete from "${name}"`),
        ...names
          .filter(([kind, name]) => kind === 'sequence' && !name.startsWith('kysely_'))
          .map(([, name]) => `alter sequence "${name}" restart`),
        'reset session_replication_role',
      ];
      return { shape, sql: statements.join(';\n') };
    }),
  );
  return emptying;
}

/** Databases this process's tests are done with, emptied: the next tests' first. */
const emptied: string[] = [];

/**
 * Empties a database a test is done with for the next one; drops it instead when it cannot be
 * reused as if new: a connection is still open to it, or its tables are not the template's.
 */
async function release(base: string, name: string): Promise<void> {
  const { shape, sql } = await emptyingOf(base);
  const reusable = await withClient(urlOf(base, name), async (client) => {
    const others = async () => (await client.query<{ n: number }>(OTHER_CONNECTIONS)).rows[0]?.n ?? 1;
    // A pool's backends end a moment after it closes.
    for (let i = 0; i < 10 && (await others()) > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    if ((await others()) > 0) return false;
    if ((await client.query<{ shape: string }>(SHAPE)).rows[0]?.shape !== shape) return false;
    await client.query(sql);
    return true;
  }).catch(() => false);
  if (reusable) emptied.push(name);
  else await withClient(base, (client) => client.query(`drop database if exists ${name} with (force)`));
}

const OTHER_CONNECTIONS =
  'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()';

let swept: Promise<void> | null = null;

/** A database holding every migration and nothing else, for one test: its URL, and how to give it back once nothing uses it. */
export async function freshPgDatabase(base: string): Promise<{ url: string; release: () => Promise<void> }> {
  swept ??= dropLeftovers(base);
  await swept;
  const name = emptied.pop() ?? (await createFromTemplate(base));
  return { url: urlOf(base, name), release: () => release(base, name) };
}
