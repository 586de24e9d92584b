import { MIGRATION_NAMES } from '../db/migrate.ts';
import { fail } from '../errors.ts';

/**
 * A snapshot is NDJSON: a header line, then for each table a line naming it, its columns and its
 * id sequence followed by one line per row (the values as an array, in column order), then an end
 * line counting what came before, so a cut-off document is refused. The schema version is the
 * list of migrations plus the format version; a restore needs both to match.
 */
export const SNAPSHOT_FORMAT = 'cumulo-snapshot';
export const SNAPSHOT_FORMAT_VERSION = 1;

export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  format_version: number;
  migrations: readonly string[];
  /** Image data is not in the snapshot; rows name their blobs by key (`images.blob_key`). */
  blobs: 'by-key';
}

export interface TableLine {
  table: string;
  columns: string[];
  /** The last id the table's sequence handed out (0 when none or no sequence). */
  sequence: number;
}

export interface EndLine {
  end: true;
  tables: number;
  rows: number;
}

export function snapshotHeader(): SnapshotHeader {
  return { format: SNAPSHOT_FORMAT, format_version: SNAPSHOT_FORMAT_VERSION, migrations: MIGRATION_NAMES, blobs: 'by-key' };
}

/** Refuses (400) a document that is not a snapshot of this schema version. */
export function checkHeader(value: unknown): void {
  const h = value as Partial<SnapshotHeader> | null;
  if (h?.format !== SNAPSHOT_FORMAT) throw fail.badRequest('Not a Cumulo snapshot: the first line must be its header');
  const theirs = `${(h.migrations ?? []).join(',')} (format ${h.format_version})`;
  const ours = `${MIGRATION_NAMES.join(',')} (format ${SNAPSHOT_FORMAT_VERSION})`;
  if (theirs !== ours) {
    throw fail.badRequest(
      `The snapshot's schema version ${theirs} differs from this server's ${ours}; restore it on a matching version`,
    );
  }
}
