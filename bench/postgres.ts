import pg from 'pg';
import { urlWithSchema } from '../src/db/postgres.ts';
import { randomHex, systemRandom } from '../src/random.ts';

/** A PostgreSQL schema of the benchmark's own, made fresh and dropped afterwards. */

export interface BenchSchema {
  /** The DATABASE_URL that puts every connection of a process in the schema. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Makes the schema, or says why PostgreSQL cannot be used. */
export async function benchSchema(databaseUrl: string): Promise<BenchSchema | { unavailable: string }> {
  const name = `bench_${randomHex(systemRandom, 6)}`;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query(`create schema ${name}`);
  } catch (error) {
    return { unavailable: (error as Error).message };
  } finally {
    await client.end().catch(() => undefined);
  }
  return {
    url: urlWithSchema(databaseUrl, name),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        await c.query(`drop schema if exists ${name} cascade`);
      } finally {
        await c.end();
      }
    },
  };
}
