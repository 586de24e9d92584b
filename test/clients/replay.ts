import { ADMIN_TOKEN, type Reply, type TestApp } from '../helpers/app.ts';
import { type Json, mapBodyIds } from './body-ids.ts';
import { IdMap, type Scalar } from './id-map.ts';
import { answerKind, itemKind, parsePath, pathOf, type Segment } from './path-params.ts';
import type { RecordedLine } from './recordings.ts';

/** What replaying one client's sequence found: a line for each request that did not go as recorded. */
export interface ReplayResult {
  failures: string[];
  /** Ids the recording never showed, and what they were taken to be. */
  guesses: string[];
  /** Warning headers of accepted requests (fields this server ignored, ...). */
  warnings: string[];
  /** Accepted requests answered 404 for what the sequence had deleted (see replay.test.ts). */
  gone: string[];
}

/** How many more times a refused GET of something the sequence deleted is sent while it still answers 2xx. */
const DELETE_POLLS = 5;
/** A token this server never issued, for a refused request when the sequence deleted none. */
const UNKNOWN_TOKEN = 'replay-unknown-token-0123456789abcdef';

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'number';
}

function camel(snake: string): string {
  return snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The kind of a value a recorded answer names: `id` by the path, `<thing>_id` a `<thing>Id`, else the key (`username`). */
function answerKeyKind(key: string, template: string): string {
  if (key === 'id') return answerKind(template) ?? 'id';
  const idOf = /^(.+)_id$/.exec(key)?.[1];
  return idOf === undefined ? key : `${camel(idOf)}Id`;
}

/** This server's value for a key of a recorded answer: the same key, or `<thing>.id` for `<thing>_id` (`image.id`). */
function ourAnswerValue(body: unknown, key: string): Scalar | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (isScalar(record[key])) return record[key];
  const nested = /^(.+)_id$/.exec(key)?.[1];
  const inner = nested === undefined ? undefined : record[nested];
  const id = typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>).id : undefined;
  return isScalar(id) ? id : undefined;
}

function isEnvelope(body: unknown): boolean {
  const errors = (body as { errors?: unknown } | null)?.errors;
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => typeof (e as { reason?: unknown } | null)?.reason === 'string')
  );
}

function describeReply(reply: Reply): string {
  if (isEnvelope(reply.body)) {
    const errors = (reply.body as { errors: { field?: string; reason: string }[] }).errors;
    return `${reply.status} ${errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; ')}`;
  }
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  return `${reply.status} ${text.slice(0, 200)}`;
}

const is2xx = (reply: Reply) => reply.status >= 200 && reply.status < 300;
const is4xx = (reply: Reply) => reply.status >= 400 && reply.status < 500 && isEnvelope(reply.body);

/** What a replay sends requests to: a test app, or a stand-in. */
export type Server = Pick<TestApp, 'request'>;

/** Told of each accepted request's 2xx answer, by the recorded operation (`GET /node/instances/{nodeId}`). */
export type AnswerListener = (operation: string, body: unknown) => void;

/** One client's sequence, replayed in order against one fresh server (see replay.test.ts for the rules). */
export class Replay {
  readonly #app: Server;
  readonly #onAnswer: AnswerListener | undefined;
  readonly #ids = new IdMap();
  /** Paths (as sent) of objects an accepted DELETE removed. */
  readonly #deleted: string[] = [];
  /** Tokens made by the sequence, by our id, and whether their scopes are narrower than `*`. */
  readonly #tokens = new Map<string, { token: string; narrow: boolean }>();
  #lastDeletedToken: string | null = null;
  readonly #result: ReplayResult = { failures: [], guesses: this.#ids.guesses, warnings: [], gone: [] };

  constructor(app: Server, onAnswer?: AnswerListener) {
    this.#app = app;
    this.#onAnswer = onAnswer;
  }

  async run(lines: readonly RecordedLine[]): Promise<ReplayResult> {
    for (const line of lines) await this.#step(line);
    return this.#result;
  }

  /** The narrow token made last and not deleted, if any. */
  #narrowToken(): string | undefined {
    return [...this.#tokens.values()].filter((t) => t.narrow).at(-1)?.token;
  }

  #isDeleted(path: string): boolean {
    return this.#deleted.some((d) => path === d || path.startsWith(`${d}/`));
  }

  async #step({ file, line, request: r }: RecordedLine): Promise<void> {
    const accepted = r.outcome === 'accepted';
    const parsed = parsePath(r.operation, r.path);
    const segments: Segment[] = [];
    let allKnown = true;
    for (const s of parsed.segments) {
      if ('word' in s) {
        segments.push(s);
        continue;
      }
      const known = this.#ids.known(s.param, s.value);
      if (known === undefined && !accepted) allKnown = false;
      const value = known ?? (accepted ? this.#ids.resolve(s.param, s.value, pathOf(segments), line) : s.value);
      segments.push({ param: s.param, value: String(value) });
    }
    const path = pathOf(segments);
    const mapValue = (kind: string, value: Scalar, guess: boolean): Scalar =>
      this.#ids.known(kind, value) ?? (accepted && guess ? this.#ids.resolve(kind, value, path, line) : value);

    const headers: Record<string, string> = {};
    if (r.content_type !== undefined) headers['content-type'] = r.content_type;
    if (r.x_filter !== undefined) headers['x-filter'] = mappedFilter(r.x_filter, mapValue);
    const raw = (r.body as { $raw?: unknown } | null)?.$raw;
    const body =
      r.body === null ? undefined : typeof raw === 'string' ? raw : JSON.stringify(mapBodyIds(r.body as Json, mapValue));
    const url = `${path}${r.query ?? ''}`;
    const send = (token: string) => this.#app.request(r.method, url, { token, headers, ...(body === undefined ? {} : { body }) });

    const where = `${file}:${line} ${r.method} ${url}`;
    const fail = (why: string) => {
      const recorded = url === `${r.path}${r.query ?? ''}` ? '' : ` (recorded ${r.path})`;
      this.#result.failures.push(`${r.client} ${where}${recorded}: ${why}`);
    };

    // A refused write goes with the live narrow token when there is one: the recorded clients
    // tried writes with it after making it. Everything else goes with the full token first.
    const narrow = this.#narrowToken();
    const reply = await send(!accepted && r.method !== 'GET' && narrow ? narrow : ADMIN_TOKEN);
    if (reply.status >= 500) return fail(`a server error: ${describeReply(reply)}`);

    if (accepted) {
      if (is2xx(reply) && r.operation !== null && typeof reply.body !== 'string') this.#onAnswer?.(r.operation, reply.body);
      if (is2xx(reply)) return this.#learn({ method: r.method, template: parsed.template, path, where }, r.answer, reply, fail);
      // The recording's server was slower to finish a deletion this sequence asked for.
      if (reply.status === 404 && this.#isDeleted(path)) {
        this.#result.gone.push(where);
        return;
      }
      return fail(`expected 2xx, got ${describeReply(reply)}`);
    }

    if (is4xx(reply)) return;
    if (!is2xx(reply) || r.method !== 'GET') return fail(`expected 4xx in the error envelope, got ${describeReply(reply)}`);
    if (this.#isDeleted(path)) {
      let last = reply;
      for (let i = 0; i < DELETE_POLLS; i++) {
        last = await send(ADMIN_TOKEN);
        if (is4xx(last)) return;
      }
      return fail(`deleted earlier in the sequence, yet answers ${describeReply(last)} after ${DELETE_POLLS} more requests`);
    }
    if (!allKnown) return fail(`names an id this sequence never made, yet answers ${describeReply(reply)}`);
    // A GET of what exists that the client expected refused was sent without valid credentials.
    const again = await send(this.#lastDeletedToken ?? UNKNOWN_TOKEN);
    if (!is4xx(again)) {
      fail(
        `answers 2xx with the full token and ${describeReply(again)} with a ${this.#lastDeletedToken ? 'deleted' : 'unknown'} one`,
      );
    }
  }

  /** What an accepted request's answer teaches: the ids of the recorded answer, a list's ids, tokens, deletions. */
  #learn(
    { method, template, path, where }: { method: string; template: string; path: string; where: string },
    answer: Record<string, Scalar> | undefined,
    reply: Reply,
    fail: (why: string) => void,
  ): void {
    for (const [key, recorded] of Object.entries(answer ?? {})) {
      const ours = ourAnswerValue(reply.body, key);
      if (ours === undefined) fail(`the recorded answer has ${key}, this server's has none`);
      else this.#ids.learn(answerKeyKind(key, template), recorded, ours);
    }
    const data = (reply.body as { data?: unknown } | null)?.data;
    const kind = itemKind(template);
    if (method === 'GET' && Array.isArray(data) && kind !== undefined) {
      const field = data.some((item) => typeof item === 'object' && item !== null && kind in item) ? kind : 'id';
      this.#ids.learnListing(kind, path, data.map((item) => (item as Record<string, unknown>)[field]).filter(isScalar));
    }
    const body = reply.body as { id?: unknown; token?: unknown; scopes?: unknown } | null;
    if (method === 'POST' && template === '/profile/tokens' && typeof body?.token === 'string') {
      this.#tokens.set(String(body.id), { token: body.token, narrow: body.scopes !== '*' });
    }
    if (method === 'DELETE') {
      this.#deleted.push(path);
      const tokenId = template === '/profile/tokens/{tokenId}' ? (path.split('/').at(-1) ?? '') : '';
      const token = this.#tokens.get(tokenId);
      if (token) {
        this.#lastDeletedToken = token.token;
        this.#tokens.delete(tokenId);
      }
    }
    if (reply.headers.warning !== undefined) this.#result.warnings.push(`${where}: ${String(reply.headers.warning)}`);
  }
}

/** An X-Filter with its ids mapped; the text as recorded when nothing in it changed. */
function mappedFilter(text: string, mapValue: (kind: string, value: Scalar, guess: boolean) => Scalar): string {
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    return text;
  }
  const mapped = mapBodyIds(parsed, mapValue);
  return JSON.stringify(mapped) === JSON.stringify(parsed) ? text : JSON.stringify(mapped);
}
