import { sql } from 'kysely';
import type { Db, DbKind } from './database.ts';

/** A table as the operator's reset, snapshot and restore see it; read from the database itself. */
export interface TableInfo {
  name: string;
  /** In the order the table was built (the same on both databases). */
  columns: string[];
  /** Rows are read in this order (every column when there is no primary key). */
  orderBy: string[];
  /** Columns of `orderBy` holding text: compared byte by byte on both databases. */
  textOrder: string[];
  /** Tables this one has foreign keys to. */
  parents: string[];
  /** The auto-incrementing column, if any. */
  serial: string | null;
}

interface ColumnRow {
  table_name: string;
  name: string;
  type: string;
  pk: number;
  serial: number;
}

const OWN_TABLES = "not like 'kysely_%'";

async function sqliteColumns(db: Db): Promise<{ columns: ColumnRow[]; links: { child: string; parent: string }[] }> {
  const tables = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master
    where type = 'table' and name not like 'sqlite_%' and name ${sql.raw(OWN_TABLES)}`.execute(db);
  const columns: ColumnRow[] = [];
  const links: { child: string; parent: string }[] = [];
  for (const t of tables.rows) {
    const autoincrement = /autoincrement/i.test(t.sql);
    const info = await sql<{ name: string; type: string; pk: number }>`
      select name, type, pk from pragma_table_info(${t.name}) order by cid`.execute(db);
    for (const c of info.rows) {
      const serial = autoincrement && c.pk === 1 && /^integer$/i.test(c.type) ? 1 : 0;
      columns.push({ table_name: t.name, name: c.name, type: c.type.toLowerCase(), pk: c.pk, serial });
    }
    const fks = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${t.name})`.execute(db);
    for (const fk of fks.rows) links.push({ child: t.name, parent: fk.table });
  }
  return { columns, links };
}

async function postgresColumns(db: Db): Promise<{ columns: ColumnRow[]; links: { child: string; parent: string }[] }> {
  // pg_catalog rather than information_schema: the latter's views take seconds on a busy server.
  const columns = await sql<ColumnRow>`
    select c.relname as table_name, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
      (case when a.attnum = any(i.indkey::int2[])
        then array_position(i.indkey::int2[], a.attnum) - array_lower(i.indkey::int2[], 1) + 1 else 0 end)::int as pk,
      (case when pg_get_expr(d.adbin, d.adrelid) like 'nextval(%' then 1 else 0 end)::int as serial
    from pg_class c
    join pg_namespace ns on ns.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_index i on i.indrelid = c.oid and i.indisprimary
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
    where ns.nspname = current_schema() and c.relkind in ('r', 'p') and c.relname ${sql.raw(OWN_TABLES)}
    order by c.relname, a.attnum`.execute(db);
  const links = await sql<{ child: string; parent: string }>`
    select cl.relname as child, pcl.relname as parent
    from pg_constraint con
    join pg_class cl on cl.oid = con.conrelid
    join pg_class pcl on pcl.oid = con.confrelid
    join pg_namespace ns on ns.oid = cl.relnamespace
    where con.contype = 'f' and ns.nspname = current_schema()`.execute(db);
  return { columns: columns.rows, links: links.rows };
}

const described = new WeakMap<Db, Promise<TableInfo[]>>();

/**
 * Every table of the service (not the migrator's own), parents before the tables that refer to
 * them, otherwise by name. The schema does not change while a process runs, so it is read once.
 */
export function describeTables(db: Db, kind: DbKind): Promise<TableInfo[]> {
  let tables = described.get(db);
  if (!tables) {
    tables = (kind === 'postgres' ? postgresColumns(db) : sqliteColumns(db)).then(({ columns, links }) =>
      orderTables(columns, links),
    );
    tables.catch(() => described.delete(db));
    described.set(db, tables);
  }
  return tables;
}

function orderTables(columns: ColumnRow[], links: { child: string; parent: string }[]): TableInfo[] {
  const byName = new Map<string, TableInfo>();
  const keys = new Map<string, { name: string; pk: number }[]>();
  const textColumns = new Set<string>();
  for (const c of columns) {
    let table = byName.get(c.table_name);
    if (!table) {
      table = { name: c.table_name, columns: [], orderBy: [], textOrder: [], parents: [], serial: null };
      byName.set(c.table_name, table);
      keys.set(c.table_name, []);
    }
    table.columns.push(c.name);
    if (c.serial) table.serial = c.name;
    if (/char|text|clob/.test(c.type)) textColumns.add(`${c.table_name}.${c.name}`);
    if (c.pk > 0) keys.get(c.table_name)?.push({ name: c.name, pk: c.pk });
  }
  for (const table of byName.values()) {
    const pk = (keys.get(table.name) ?? []).sort((a, b) => a.pk - b.pk);
    table.orderBy = pk.length ? pk.map((k) => k.name) : [...table.columns];
    table.textOrder = table.orderBy.filter((c) => textColumns.has(`${table.name}.${c}`));
  }
  for (const { child, parent } of links) {
    const table = byName.get(child);
    if (table && parent !== child && byName.has(parent) && !table.parents.includes(parent)) table.parents.push(parent);
  }
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  const visit = (table: TableInfo, path: Set<string>) => {
    if (placed.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of [...table.parents].sort()) {
      const p = byName.get(parent);
      if (p) visit(p, path);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const name of [...byName.keys()].sort()) visit(byName.get(name) as TableInfo, new Set());
  return ordered;
}
