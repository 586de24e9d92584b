import type { Context } from '../context.ts';
import { readRows, readSequence } from '../db/table-data.ts';
import { describeTables } from '../db/tables.ts';
import { type EndLine, snapshotHeader, type TableLine } from './snapshot-format.ts';

const PAGE = 1000;

/** Writes lines to a stream, waiting whenever it asks the writer to. */
export function streamWriter(out: NodeJS.WritableStream): (lines: string) => Promise<void> | undefined {
  return (lines) => (out.write(lines) ? undefined : new Promise<void>((resolve) => out.once('drain', () => resolve())));
}

/**
 * Writes every table (jobs and operator settings included) as one snapshot document, read in one
 * repeatable-read transaction so the tables agree with each other. `write` gets whole lines.
 */
export async function writeSnapshot(ctx: Context, write: (lines: string) => unknown): Promise<EndLine> {
  const tables = await describeTables(ctx.db, ctx.dbKind);
  return ctx.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await write(`${JSON.stringify(snapshotHeader())}\n`);
      let rows = 0;
      for (const table of tables) {
        const line: TableLine = {
          table: table.name,
          columns: table.columns,
          sequence: await readSequence(trx, ctx.dbKind, table),
        };
        await write(`${JSON.stringify(line)}\n`);
        for (let offset = 0; ; offset += PAGE) {
          const page = await readRows(trx, ctx.dbKind, table, offset, PAGE);
          if (page.length) await write(`${page.map((r) => JSON.stringify(r)).join('\n')}\n`);
          rows += page.length;
          if (page.length < PAGE) break;
        }
      }
      const end: EndLine = { end: true, tables: tables.length, rows };
      await write(`${JSON.stringify(end)}\n`);
      return end;
    });
}
