import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

const BATCH = 500;

/**
 * Events kept from before read as the live service records them: a username and a message on
 * every event ('system' for those no user caused, '' for no message); a disk_imagize names the
 * disk's node as its entity (it named the disk, as type `disks`); a config's changes are
 * notifications; a finished event's duration is whole seconds; and a secondary entity's id is an
 * integer (it was text), except a public image's, with a config's type `node_config`.
 */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await sql`update events set username = 'system' where username is null`.execute(db);
  await sql`update events set message = '' where message is null`.execute(db);
  await sql`
    update events set
      entity_type = 'node',
      entity_label = coalesce((select nodes.label from nodes where nodes.id = events.entity_id), entity_label),
      entity_url = '/v4/node/instances/' || entity_id
    where entity_type = 'disks'`.execute(db);
  await sql`
    update events set status = 'notification', percent_complete = null, duration = null
    where action in ('node_config_create', 'node_config_update', 'node_config_delete')`.execute(db);
  await sql`update events set duration = round(duration) where status in ('finished', 'failed') and duration is not null`.execute(
    db,
  );
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; secondary_entity: string }>`
      select id, secondary_entity from events
      where secondary_entity is not null and id > ${after}
      order by id limit ${BATCH}`.execute(db);
    for (const row of rows) {
      const fixed = secondaryAsLive(row.secondary_entity);
      if (fixed !== row.secondary_entity) {
        await sql`update events set secondary_entity = ${fixed} where id = ${row.id}`.execute(db);
      }
    }
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return;
    after = last.id;
  }
}

function secondaryAsLive(text: string): string {
  const secondary = JSON.parse(text) as { id: unknown; type: unknown; label: unknown; url: unknown };
  const type = secondary.type === 'config' ? 'node_config' : secondary.type;
  let id = secondary.id;
  if (typeof id === 'string') {
    const digits = type === 'image' ? /^private\/(\d+)$/.exec(id)?.[1] : /^\d+$/.exec(id)?.[0];
    if (digits !== undefined) id = Number(digits);
  }
  return JSON.stringify({ ...secondary, id, type });
}
