import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECORDED_DIR } from '../../scripts/shared-copies.ts';

/** Our own sequences in the recorded form (client `live-coverage`), kept in the repository. */
export const OWN_DIR = fileURLToPath(new URL('./own/', import.meta.url));

/** What a recorded client sent in one request (the format: test/clients/recorded/README.md). */
export interface RecordedRequest {
  client: string;
  /** The reference operation, `METHOD /path/{param}`; null for a path the reference does not have. */
  operation: string | null;
  method: string;
  path: string;
  /** The query string as sent, from its `?`. */
  query?: string;
  content_type?: string;
  x_filter?: string;
  /** The JSON body; null for none; `{"$raw": text}` for a body that is not JSON. */
  body: unknown;
  /** For a write that succeeded: the ids and names the recording's server answered. */
  answer?: Record<string, string | number>;
  outcome: 'accepted' | 'refused';
  note?: string;
}

/** A recorded request and where it is written, for messages. */
export interface RecordedLine {
  file: string;
  line: number;
  request: RecordedRequest;
}

function parseLine(file: string, line: number, text: string): RecordedLine {
  const request = JSON.parse(text) as RecordedRequest;
  const where = `${file}:${line}`;
  for (const key of ['client', 'method', 'path'] as const) {
    if (typeof request[key] !== 'string' || request[key] === '') throw new Error(`${where}: no ${key}`);
  }
  if (request.outcome !== 'accepted' && request.outcome !== 'refused') throw new Error(`${where}: outcome is neither`);
  if (!request.path.startsWith('/v4/')) throw new Error(`${where}: the path is not under /v4/`);
  return { file, line, request };
}

/** Every recorded request of every `*.jsonl` file in `dir`, grouped by client, each client's in the order sent. */
export function readRecordings(dir = RECORDED_DIR): Map<string, RecordedLine[]> {
  const clients = new Map<string, RecordedLine[]>();
  const files = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort();
  for (const file of files) {
    const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
    lines.forEach((text, index) => {
      if (text.trim() === '') return;
      const recorded = parseLine(file, index + 1, text);
      const sequence = clients.get(recorded.request.client) ?? [];
      sequence.push(recorded);
      clients.set(recorded.request.client, sequence);
    });
  }
  return clients;
}
