import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

/**
 * A node's tags and IPv4 addresses, as the JSON arrays its views show, kept on its row by the
 * database: every node view and every page of nodes reads them, and gathering them with a subquery
 * a node cost two thirds of a page's statement. Triggers on entity_tags and ip_addresses write them
 * in the same transaction as the change, whichever code makes it, so a read never sees them differ
 * from the rows they come from. The order is the views': tags by name; addresses public first, then
 * as they were assigned (the index ip_addresses_node_order).
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const lists = nodeListExpressions(kind);
  await sql`alter table nodes add column tag_list text not null default '[]'`.execute(db);
  await sql`alter table nodes add column ipv4_list text not null default '[]'`.execute(db);
  await sql`update nodes set tag_list = ${sql.raw(lists.tags)}, ipv4_list = ${sql.raw(lists.addresses)}`.execute(db);
  for (const statement of kind === 'postgres' ? postgresTriggers() : sqliteTriggers()) await sql.raw(statement).execute(db);
}

/** Each list of the node row being updated (`nodes`), read from the rows it comes from; the same text on both databases. */
export function nodeListExpressions(kind: DbKind): { tags: string; addresses: string } {
  return kind === 'postgres' ? POSTGRES : SQLITE;
}

const SQLITE = {
  tags: `(select json_group_array(v) from (select et.tag as v from entity_tags et
    where et.account_id = nodes.account_id and et.entity_type = 'node' and et.entity_id = nodes.id order by et.tag))`,
  addresses: `(select json_group_array(v) from (select a.address as v from ip_addresses a
    where a.account_id = nodes.account_id and a.node_id = nodes.id and a.type = 'ipv4' order by a.public desc, a.created, a.ordinal))`,
};

const POSTGRES = {
  tags: `array_to_json(array(select et.tag from entity_tags et
    where et.account_id = nodes.account_id and et.entity_type = 'node' and et.entity_id = nodes.id order by et.tag))::text`,
  addresses: `array_to_json(array(select a.address from ip_addresses a
    where a.account_id = nodes.account_id and a.node_id = nodes.id and a.type = 'ipv4' order by a.public desc, a.created, a.ordinal))::text`,
};

function sqliteTriggers(): string[] {
  const tags = (row: 'new' | 'old') => `update nodes set tag_list = ${SQLITE.tags} where id = ${row}.entity_id;`;
  const addresses = (ids: string) => `update nodes set ipv4_list = ${SQLITE.addresses} where id in (${ids});`;
  return [
    `create trigger node_tag_list_insert after insert on entity_tags when new.entity_type = 'node' begin ${tags('new')} end`,
    `create trigger node_tag_list_delete after delete on entity_tags when old.entity_type = 'node' begin ${tags('old')} end`,
    `create trigger node_tag_list_update after update on entity_tags begin ${tags('old')} ${tags('new')} end`,
    `create trigger node_ipv4_list_insert after insert on ip_addresses when new.node_id is not null and new.type = 'ipv4'
      begin ${addresses('new.node_id')} end`,
    `create trigger node_ipv4_list_delete after delete on ip_addresses when old.node_id is not null and old.type = 'ipv4'
      begin ${addresses('old.node_id')} end`,
    `create trigger node_ipv4_list_update after update of node_id, type, public, created, ordinal, address on ip_addresses
      begin ${addresses('old.node_id, new.node_id')} end`,
  ];
}

function postgresTriggers(): string[] {
  return [
    `create function keep_node_tag_list() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' and old.entity_type = 'node' then
        update nodes set tag_list = ${POSTGRES.tags} where id = old.entity_id;
      end if;
      if tg_op <> 'DELETE' and new.entity_type = 'node' then
        update nodes set tag_list = ${POSTGRES.tags} where id = new.entity_id;
      end if;
      return null;
    end $$`,
    `create trigger node_tag_list after insert or delete or update on entity_tags
      for each row execute function keep_node_tag_list()`,
    // The old and the new row's node, as the SQLite trigger does it; in an INSERT (DELETE) trigger
    // the old (new) row is null, and so are its fields.
    `create function keep_node_ipv4_list() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' or (tg_op = 'INSERT' and new.type = 'ipv4') or (tg_op = 'DELETE' and old.type = 'ipv4') then
        update nodes set ipv4_list = ${POSTGRES.addresses} where id in (old.node_id, new.node_id);
      end if;
      return null;
    end $$`,
    `create trigger node_ipv4_list after insert or delete or update of node_id, type, public, created, ordinal, address
      on ip_addresses for each row execute function keep_node_ipv4_list()`,
  ];
}
