import fs from 'node:fs';
import path from 'node:path';
import { LIVE_DIR } from '../../scripts/shared-copies.ts';
import type { LiveException } from './live-exceptions.ts';

/**
 * The live service's answers as test/clients/live/README.md describes them, and the check of this
 * server's answers against them: every key the live service sends, with a type it sends.
 */

export type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';
type TypeCounts = Partial<Record<JsonType, number>>;

export interface LiveOperation {
  brand_op: string;
  statuses: Record<string, number>;
  keys: Record<string, { types: TypeCounts; examples: unknown[] }>;
  xfilter: Record<string, { count: number; examples: string[] }>;
  query: Record<string, string[]>;
}

export interface LiveShapes {
  operations: Record<string, LiveOperation>;
  events: Record<string, LiveEventAction>;
}

export interface LiveEventAction {
  entity_type: TypeCounts & Record<string, number>;
  secondary_entity_type: Record<string, number>;
  secondary_entity_id_type: TypeCounts;
}

let cache: LiveShapes | undefined;
/** The kept live shapes (their copy is in this project's words: `node_id`, `node/debian12`). */
export function readLiveShapes(): LiveShapes {
  cache ??= JSON.parse(fs.readFileSync(path.join(LIVE_DIR, 'live-shapes.json'), 'utf8')) as LiveShapes;
  return cache;
}

type LiveKey = LiveOperation['keys'][string];

/**
 * What the live service sends at `at` (`data[].site_type`) for the record `operation` answers with:
 * in its answers to that operation, or to the record's view or collection. An action that answers
 * with its record (`POST /node/instances/{nodeId}/clone`) is taken as the record's view.
 */
export function liveKey(operation: string, at: string): LiveKey | undefined {
  return liveKeys(operation, at)[0];
}

/** Every answer of the record `operation` answers with that sends `at`: the operation's own first, then its view's and collection's. */
export function liveKeys(operation: string, at: string): LiveKey[] {
  const { operations } = readLiveShapes();
  // Every device slot of a config is one shape; the recordings filled sda and sdb only.
  const key = (op: string, path: string) =>
    operations[op]?.keys[path] ?? operations[op]?.keys[path.replace(/devices\.sd[a-z]\b/, 'devices.sda')];
  const [method, path = ''] = operation.split(' ');
  const views = (collection: string) =>
    Object.keys(operations).filter(
      (op) => op.startsWith(`GET ${collection}/{`) && /^\{[^/]+\}$/.test(op.slice(collection.length + 5)),
    );
  // The same path under another method answers with the same record (`PUT /account`, `GET /account`).
  const found = [key(operation, at), ...['GET', 'PUT'].filter((m) => m !== method).map((m) => key(`${m} ${path}`, at))];
  if (method === 'GET' && at.startsWith('data[].')) {
    found.push(...views(path).map((view) => key(view, at.slice(7))));
  } else {
    // A create in a collection answers with a record of it (`POST /node/instances/{nodeId}/configs`).
    found.push(key(`GET ${path}`, `data[].${at}`));
    // The record the path names: its last parameter and what comes before it.
    const record = /^(.*)\/\{[^/]+\}/.exec(path.replace(/(\/\{[^/]+\})[^{]*$/, '$1'))?.[0];
    if (record === undefined) {
      // An action on a collection that answers with a record of it (`POST /domains/import`).
      found.push(key(`GET ${path.slice(0, path.lastIndexOf('/'))}`, `data[].${at}`));
    } else {
      const collection = record.slice(0, record.lastIndexOf('/'));
      found.push(key(`GET ${record}`, at), key(`GET ${collection}`, `data[].${at}`), ...views(collection).map((v) => key(v, at)));
    }
  }
  return found.filter((k) => k !== undefined);
}

/** Whether the live service sends `at` for the record `operation` answers with (see liveKey). */
export function liveSends(operation: string, at: string): boolean {
  return liveKey(operation, at) !== undefined;
}

/** Whether the live service ever sends null at `at` for that record; undefined when it does not send `at`. */
export function liveSendsNull(operation: string, at: string): boolean | undefined {
  const found = liveKey(operation, at);
  return found === undefined ? undefined : found.types.null !== undefined;
}

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** How often each key path (`data[].devices.sda.disk_id`) held each type, over many answers of one operation. */
export class ShapeTally {
  readonly paths = new Map<string, TypeCounts>();
  answers = 0;

  add(body: unknown): void {
    this.answers++;
    this.#visit('', body);
  }

  #visit(at: string, value: unknown): void {
    const type = typeOf(value);
    const counts = this.paths.get(at) ?? {};
    counts[type] = (counts[type] ?? 0) + 1;
    this.paths.set(at, counts);
    if (type === 'array') for (const item of value as unknown[]) this.#visit(`${at}[]`, item);
    if (type === 'object') {
      for (const [key, inner] of Object.entries(value as object)) this.#visit(at === '' ? key : `${at}.${key}`, inner);
    }
  }
}

/** The path that holds `at`, and the type it has when it does: `data[]` for `data[].id`, `data` for `data[]`. */
function holderOf(at: string): { holder: string; type: JsonType } {
  if (at.endsWith('[]')) return { holder: at.slice(0, -2), type: 'array' };
  const dot = at.lastIndexOf('.');
  return { holder: dot < 0 ? '' : at.slice(0, dot), type: 'object' };
}

const total = (counts: TypeCounts | undefined) => Object.values(counts ?? {}).reduce((a, b) => a + b, 0);

/** Whether a value of type `ours` is one the live service sends where it sent `live`. */
function fits(ours: JsonType, live: TypeCounts): boolean {
  if (live[ours] !== undefined) return true;
  if (ours === 'integer' && live.number !== undefined) return true;
  // The live service only ever sent null here: whatever it holds otherwise was never seen.
  return ours !== 'null' && Object.keys(live).every((t) => t === 'null');
}

/**
 * Where this server's answers to one operation differ from the live service's:
 * - a key the live service always sends that an answer lacks, or one it sends in more than half of
 *   its records that no answer has (a key it sends less often depends on the data: a rule's
 *   description, a fifth device slot);
 * - a type it never sends there, for the record (its view or collection count: one record, one
 *   shape); null only where no answer held a value either (a clone onto an empty node has no image,
 *   one onto a new node has the source's: the data's, not the shape's).
 * Keys only this server sends are not differences (later or own fields).
 */
export function shapeDifferences(operation: string, live: LiveOperation, ours: ShapeTally): { path: string; why: string }[] {
  const found: { path: string; why: string }[] = [];
  const typeDifferences = (at: string, shape: LiveKey) => {
    const liveTypes = recordTypes(operation, at, shape);
    const ourTypes = Object.keys(ours.paths.get(at) ?? {}) as JsonType[];
    const held = ourTypes.some((t) => t !== 'null');
    for (const t of ourTypes) {
      if (fits(t, liveTypes) || (t === 'null' && held)) continue;
      found.push({ path: at, why: `${t}; the live service sends ${Object.keys(liveTypes).join(' or ')}` });
    }
  };
  for (const [at, shape] of Object.entries(live.keys)) {
    // The root, and an array's items (how many a list holds is the data's, not the shape's).
    if (at === '' || at.endsWith('[]')) {
      if (at !== '') typeDifferences(at, shape);
      continue;
    }
    const { holder, type } = holderOf(at);
    const liveHolders = live.keys[holder]?.types[type] ?? 0;
    const ourHolders = ours.paths.get(holder)?.[type] ?? 0;
    if (ourHolders === 0) continue;
    const ourCount = total(ours.paths.get(at));
    const liveCount = total(shape.types);
    if (ourCount === 0) {
      if (liveCount * 2 > liveHolders) {
        found.push({ path: at, why: `absent; the live service sends it (${liveCount} of ${liveHolders})` });
      }
      continue;
    }
    if (liveCount >= liveHolders && ourCount < ourHolders) {
      found.push({ path: at, why: `in ${ourCount} of ${ourHolders}; the live service always sends it` });
    }
    typeDifferences(at, shape);
  }
  return found;
}

/** The types the live service sends at `at` of the record `operation` answers with, over its answers to every operation of that record. */
function recordTypes(operation: string, at: string, shape: LiveKey): TypeCounts {
  const types: TypeCounts = { ...shape.types };
  for (const other of liveKeys(operation, at)) {
    for (const [t, n] of Object.entries(other.types) as [JsonType, number][]) types[t] = (types[t] ?? 0) + n;
  }
  return types;
}

/**
 * Every difference between this server's answers (tallied by operation) and the live service's,
 * as `OPERATION  path: why`, leaving out the exceptions; and the exceptions that matched nothing.
 */
export function liveDifferences(
  tallies: ReadonlyMap<string, ShapeTally>,
  exceptions: readonly LiveException[],
): { differences: string[]; unexercised: string[]; stale: LiveException[] } {
  const used = new Set<LiveException>();
  const differences: string[] = [];
  const unexercised: string[] = [];
  for (const [operation, live] of Object.entries(readLiveShapes().operations)) {
    if (!Object.keys(live.statuses).some((s) => s.startsWith('2')) || Object.keys(live.keys).length === 0) continue;
    const ours = tallies.get(operation);
    if (!ours) {
      unexercised.push(operation);
      continue;
    }
    for (const found of shapeDifferences(operation, live, ours)) {
      const excepted = exceptions.find((e) => (e.operation === '*' || e.operation === operation) && e.path === found.path);
      if (excepted) used.add(excepted);
      else differences.push(`${operation}  ${found.path}: ${found.why}`);
    }
  }
  return { differences, unexercised, stale: exceptions.filter((e) => !used.has(e)) };
}
