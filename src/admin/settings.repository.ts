import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

export const CLOCK_OFFSET_KEY = 'clock.offset_ms';

export async function readSettings(db: Kysely<Database>): Promise<Map<string, unknown>> {
  const rows = await db.selectFrom('operator_settings').select(['key', 'value']).execute();
  return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
}

export async function putSetting(db: Kysely<Database>, key: string, value: unknown): Promise<void> {
  const text = JSON.stringify(value);
  await db
    .insertInto('operator_settings')
    .values({ key, value: text })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: text }))
    .execute();
}

export async function deleteSetting(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('operator_settings').where('key', '=', key).execute();
}

/** Deletes every setting whose key starts with `prefix`. */
export async function deleteSettingsUnder(db: Kysely<Database>, prefix: string): Promise<void> {
  await db.deleteFrom('operator_settings').where(sql<string>`substr(key, 1, ${prefix.length})`, '=', prefix).execute();
}

/** Adds `ms` to the persisted clock offset in one statement (safe against other processes); returns the new offset. */
export async function addClockOffset(db: Kysely<Database>, ms: number): Promise<number> {
  const row = await db
    .insertInto('operator_settings')
    .values({ key: CLOCK_OFFSET_KEY, value: String(ms) })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ value: sql<string>`cast(cast(operator_settings.value as bigint) + cast(${ms} as bigint) as text)` }),
    )
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
