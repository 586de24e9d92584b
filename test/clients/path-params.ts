import fs from 'node:fs';
import { FACTS_PATH } from '../../scripts/reference-facts.ts';

/**
 * Reads a recorded path against the reference's path templates: which segments are parameters
 * (`{nodeId}`, `{diskId}`, `{username}` ...) and which are words. A parameter's name is the kind of
 * value it holds, and the id maps are kept per kind.
 */

/** One segment of a path: a word of the template, or a parameter's value. */
export type Segment = { word: string } | { param: string; value: string };

export interface ParsedPath {
  /** The template matched, e.g. `/node/instances/{nodeId}/disks`; '' when none does. */
  template: string;
  segments: Segment[];
}

let templateCache: string[] | undefined;
/** Every path template of the reference (without `/v4`). */
export function referenceTemplates(): string[] {
  templateCache ??= Object.keys((JSON.parse(fs.readFileSync(FACTS_PATH, 'utf8')) as { paths: object }).paths);
  return templateCache;
}

function parts(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

const PARAM = /^\{([^/{}]+)\}$/;

/**
 * Matches `path` (its segments, without `/v4`) to `template`: words equal, a parameter takes one
 * segment, and the template's last parameter takes every segment left when the whole path must
 * match (image ids such as `private/16` hold a slash). With `prefix`, the template may match the
 * start of the path only; the rest of the path are words. Null when it does not match.
 */
function match(template: string, path: string[], prefix: boolean): Segment[] | null {
  const t = parts(template);
  if (path.length < t.length || (!prefix && path.length > t.length && !PARAM.test(t.at(-1) ?? ''))) return null;
  const segments: Segment[] = [];
  for (const [i, word] of t.entries()) {
    const param = PARAM.exec(word)?.[1];
    const last = i === t.length - 1;
    if (param === undefined) {
      if (path[i] !== word) return null;
      segments.push({ word });
    } else segments.push({ param, value: (last && !prefix ? path.slice(i) : [path[i]]).join('/') });
  }
  for (const word of prefix ? path.slice(t.length) : []) segments.push({ word });
  return segments;
}

function words(template: string): number {
  return parts(template).filter((s) => !PARAM.test(s)).length;
}

/**
 * The path as the reference names it: by the recorded operation's template when it matches, else
 * by the template that matches the longest start of the path (the most words on a tie), so that a
 * path the reference lacks (`/account/oauth-clients/{clientId}/reset_secret`) still has its ids
 * found. With no template at all, every segment is a word.
 */
export function parsePath(operation: string | null, path: string): ParsedPath {
  const segs = parts(path.replace(/^\/v4(?=\/)/, ''));
  const template = operation?.split(' ', 2)[1];
  const exact = template === undefined ? null : match(template, segs, false);
  if (template !== undefined && exact) return { template, segments: exact };
  let best: ParsedPath = { template: '', segments: segs.map((word) => ({ word })) };
  for (const candidate of referenceTemplates()) {
    const found = match(candidate, segs, true);
    if (!found) continue;
    const longer = parts(candidate).length - parts(best.template).length;
    if (longer > 0 || (longer === 0 && words(candidate) > words(best.template))) best = { template: candidate, segments: found };
  }
  return best;
}

/** The path of `segments` with `/v4` in front. */
export function pathOf(segments: readonly Segment[]): string {
  return `/v4/${segments.map((s) => ('word' in s ? s.word : s.value)).join('/')}`;
}

/** The kind of the items of a collection template: `/node/instances/{nodeId}/disks` holds `diskId`s. */
export function itemKind(template: string): string | undefined {
  const prefix = `${template}/`;
  for (const candidate of referenceTemplates()) {
    if (!candidate.startsWith(prefix)) continue;
    const param = PARAM.exec(candidate.slice(prefix.length))?.[1];
    if (param !== undefined) return param;
  }
  return undefined;
}

/**
 * The kind of the `id` a write answers: what a collection holds (`POST /domains` answers a
 * `domainId`), else the object the path names (`PUT /domains/{domainId}`), else, for an action
 * (`/clone`, `/disable`, `/images/upload`), the same asked of the path without its last word.
 */
export function answerKind(template: string): string | undefined {
  let t = parts(template);
  while (t.length > 0) {
    const joined = `/${t.join('/')}`;
    const kind = itemKind(joined) ?? PARAM.exec(t.at(-1) ?? '')?.[1];
    if (kind !== undefined) return kind;
    t = t.slice(0, -1);
  }
  return undefined;
}
