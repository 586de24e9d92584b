import { closeObjects } from '../../src/http/input-rules.ts';
import { dropUnknownFields } from '../../src/http/lenient-body.ts';
import { validatorCompiler } from '../../src/http/validation.ts';
import type { OperationRef } from '../helpers/openapi-compare.ts';
import type { Schema } from './bad-input-values.ts';

/**
 * A hostile request of the bad-input suite, and what the suite knows of an operation of the API
 * document to make them. Each request says whether it must be refused (`refuse`) or only must not
 * break anything (`any`: not a 5xx, and a refusal in the envelope that changes nothing).
 */

export interface Case {
  /** The class of input, to group what fails: `path id: non-canonical`, `body: NUL in a string`... */
  cls: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  expect: 'refuse' | 'any';
  /** A refusal must name this field (or a field that contains it or that it contains). */
  field?: string;
  /** The one status a refusal must have. */
  status?: number;
  /** An empty body counts as no body, whatever its content type: never a 415. */
  no415?: boolean;
  /** An unknown key the body holds: never the cause of a refusal; named in the Warning header of an acceptance. */
  ignored?: string;
}

export interface Operation {
  method: string;
  /** `/node/instances/{nodeId}` as in the document. */
  path: string;
  operationId: string;
  pathParams: { name: string; schema: Schema }[];
  queryParams: { name: string; schema: Schema }[];
  body: Schema | undefined;
}

export interface Setting {
  /** A real value for every path parameter. */
  params: Record<string, string>;
  /** A valid body for the operation, to spoil one field at a time. */
  validBody: () => Record<string, unknown>;
  /** Real ids for integer fields named like `disk_id`. */
  refs: Record<string, number>;
  bodyLimit: number;
}

export function operations(refs: OperationRef[]): Operation[] {
  return refs.map(({ method, path, op }) => {
    const params = (op.parameters ?? []) as { name: string; in: string; schema: Schema }[];
    const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
    return {
      method: method.toUpperCase(),
      path,
      operationId: String(op.operationId),
      pathParams: params.filter((p) => p.in === 'path').map(({ name, schema }) => ({ name, schema })),
      queryParams: params.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
      body: content?.['application/json']?.schema,
    };
  });
}

export function urlOf(op: Operation, setting: Setting, raw: Record<string, string> = {}, query = ''): string {
  let url = `/v4${op.path}`;
  for (const { name } of op.pathParams) {
    const real = setting.params[name];
    if (real === undefined) throw new Error(`no real value for the path parameter ${name} of ${op.operationId}`);
    url = url.replace(`{${name}}`, raw[name] ?? encodeURIComponent(real));
  }
  return query ? `${url}?${query}` : url;
}

const validators = new Map<string, (value: unknown) => boolean>();

/**
 * Validates `value` against a schema of the document the way the app reads that part of a request:
 * a body after what the server ignores (unknown keys, nulls meaning "not given") is dropped.
 */
export function validates(schema: Schema, part: 'body' | 'querystring', value: unknown): boolean {
  const key = `${part} ${JSON.stringify(schema)}`;
  let check = validators.get(key);
  if (!check) {
    check = validatorCompiler({ schema, httpPart: part, method: 'POST', url: '/' }) as (v: unknown) => boolean;
    validators.set(key, check);
  }
  const copy = structuredClone(value);
  if (part === 'body') dropUnknownFields(closeObjects(schema) as Schema, copy);
  return check(copy);
}

export const CONTENT_TYPES = {
  none: undefined,
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain',
} as const;

export function withType(type: string | undefined): Record<string, string> {
  return type === undefined ? {} : { 'content-type': type };
}
