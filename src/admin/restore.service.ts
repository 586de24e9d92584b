import type { Context } from '../context.ts';
import { insertRows, maxSerial, type RowValues, wipeTables, writeSequence } from '../db/table-data.ts';
import { describeTables, type TableInfo } from '../db/tables.ts';
import { inTransaction } from '../db/transaction.ts';
import { forgetCachedZones } from '../domain/domains/zone-cache.ts';
import { ApiError, fail } from '../errors.ts';
import { checkHeader, type EndLine, type TableLine } from './snapshot-format.ts';

interface TableData {
  info: TableInfo;
  line: TableLine;
  rows: RowValues[];
}

function parseLine(text: string, n: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw fail.badRequest(`Line ${n} of the snapshot is not JSON`);
  }
}

/** Reads a snapshot document, checking it against this database's tables; nothing is written yet. */
async function readSnapshot(ctx: Context, source: AsyncIterable<string>): Promise<Map<string, TableData>> {
  // Taken before anything is awaited: a line reader drops the lines that come while nobody iterates.
  const iterator = source[Symbol.asyncIterator]();
  const lines = { [Symbol.asyncIterator]: () => iterator };
  const tables = new Map((await describeTables(ctx.db, ctx.dbKind)).map((t) => [t.name, t]));
  const data = new Map<string, TableData>();
  let current: TableData | null = null;
  let end: EndLine | null = null;
  let n = 0;
  let rows = 0;
  for await (const text of lines) {
    n += 1;
    if (text.trim() === '') continue;
    if (end) throw fail.badRequest(`Line ${n} of the snapshot comes after its end line`);
    const value = parseLine(text, n);
    if (n === 1) {
      checkHeader(value);
    } else if (Array.isArray(value)) {
      if (!current) throw fail.badRequest(`Line ${n} of the snapshot is a row outside any table`);
      if (value.length !== current.line.columns.length) {
        throw fail.badRequest(`Line ${n} of the snapshot has ${value.length} values for ${current.line.columns.length} columns`);
      }
      current.rows.push(value);
      rows += 1;
    } else if (typeof (value as TableLine).table === 'string') {
      current = tableData(tables, data, value as TableLine, n);
    } else if ((value as EndLine).end === true) {
      end = value as EndLine;
    } else {
      throw fail.badRequest(`Line ${n} of the snapshot is neither a table, a row nor the end`);
    }
  }
  if (n === 0) throw fail.badRequest('The snapshot is empty');
  if (!end || end.tables !== data.size || end.rows !== rows) {
    throw fail.badRequest('The snapshot is incomplete: its end line is missing or does not match what came before');
  }
  return data;
}

function tableData(tables: Map<string, TableInfo>, data: Map<string, TableData>, line: TableLine, n: number): TableData {
  const info = tables.get(line.table);
  if (!info) throw fail.badRequest(`The snapshot holds a table ${line.table} this database does not have`);
  if (data.has(line.table)) throw fail.badRequest(`The snapshot holds the table ${line.table} twice`);
  const unknown = (line.columns ?? []).filter((c) => !info.columns.includes(c));
  if (!Array.isArray(line.columns) || unknown.length) {
    throw fail.badRequest(`Line ${n}: the table ${line.table} has no column ${unknown.join(', ') || '(columns missing)'}`);
  }
  const entry = { info, line, rows: [] };
  data.set(line.table, entry);
  return entry;
}

/**
 * Replaces all state with a snapshot's, in one transaction: every table emptied, the snapshot's rows
 * written parents first, each id sequence set to where the snapshot's was (at least its largest id).
 * A table the snapshot lacks stays empty. Blobs are not touched.
 */
export async function restoreSnapshot(ctx: Context, lines: AsyncIterable<string>): Promise<{ tables: number; rows: number }> {
  const data = await readSnapshot(ctx, lines);
  const tables = await describeTables(ctx.db, ctx.dbKind);
  let rows = 0;
  try {
    rows = await inTransaction(ctx.db, async (trx) => {
      let written = 0;
      await wipeTables(trx, ctx.dbKind, tables);
      for (const table of tables) {
        const entry = data.get(table.name);
        if (entry) {
          await insertRows(trx, table, entry.line.columns, entry.rows);
          written += entry.rows.length;
        }
        const sequence = Number(entry?.line.sequence ?? 0) || 0;
        await writeSequence(trx, ctx.dbKind, table, Math.max(sequence, await maxSerial(trx, table)));
      }
      return written;
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw fail.badRequest(`The snapshot could not be restored: ${(err as Error).message}`);
  }
  await ctx.operator.reload();
  forgetCachedZones(ctx.db);
  return { tables: data.size, rows };
}
