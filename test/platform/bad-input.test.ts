import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, DIALECTS, type TestApp } from '../helpers/app.ts';
import { operationName, operationsOf } from '../helpers/openapi-compare.ts';
import { settle } from '../nodes/helpers.ts';
import { operatorApp } from '../operator/helpers.ts';
import { contentCases, fieldCases } from './bad-input-bodies.ts';
import { filterCases, pathCases, queryCases } from './bad-input-params.ts';
import { type Case, type Operation, operations, type Setting } from './bad-input-request.ts';
import { furnish, paramsFor, type State, stateChanges, stateOf, validBody } from './bad-input-world.ts';

/**
 * Hostile input on every operation of the served API document, against an account holding real
 * objects of every kind: never a 5xx; a refusal is a 4xx in the envelope and changes nothing.
 */

interface Sent {
  status: number;
  body: unknown;
  text: string;
  warning: string | undefined;
}

async function send(app: TestApp, c: Case): Promise<Sent> {
  const server = app.runtime.app;
  if (!server) throw new Error('no app');
  const res = await server.inject({
    method: c.method as 'GET',
    url: c.url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...c.headers },
    ...(c.payload !== undefined ? { payload: c.payload } : {}),
  });
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  const warning = res.headers.warning;
  return { status: res.statusCode, body, text: res.body, warning: typeof warning === 'string' ? warning : undefined };
}

/** Why a refusal is not `{"errors": [{"field"?, "reason"}]}`, or undefined when it is. */
function envelopeProblem(body: unknown): string | undefined {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'errors') return 'not the envelope';
  if (!Array.isArray(errors) || errors.length === 0) return 'no errors';
  for (const e of errors as Record<string, unknown>[]) {
    if (typeof e?.reason !== 'string' || e.reason === '') return 'an error without a reason';
    if (e.field !== undefined && typeof e.field !== 'string') return 'a field that is not a string';
    if (Object.keys(e).some((k) => k !== 'field' && k !== 'reason')) return 'an error with other keys';
  }
  return undefined;
}

/** Whether a refusal names `field`, a field holding it, or a field inside it. */
function namesField(body: unknown, field: string): boolean {
  const errors = (body as { errors: { field?: string }[] }).errors;
  const related = (a: string, b: string) => a === b || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
  return errors.some((e) => e.field !== undefined && e.field !== '' && (related(e.field, field) || related(field, e.field)));
}

function fieldsOf(body: unknown): string[] {
  return ((body as { errors?: { field?: string }[] }).errors ?? []).flatMap((e) => (e.field ? [e.field] : []));
}

/**
 * What is wrong with the answer to one case, or undefined. Once a request that must be refused was
 * accepted (`loose`), later refusals may have other causes (the node it moved is busy), so they
 * need not name the field.
 */
function problem(c: Case, res: Sent, loose: boolean): string | undefined {
  if (res.status >= 500) return `${res.status}`;
  if (c.no415 && res.status === 415) return '415 for an empty body';
  if (res.status < 400 && c.ignored !== undefined && !res.warning?.includes(c.ignored)) {
    return `accepted without naming ${c.ignored} in a Warning header (${res.warning ?? 'none'})`;
  }
  if (res.status < 400) return c.expect === 'refuse' ? `accepted (${res.status})` : undefined;
  if (c.ignored !== undefined && fieldsOf(res.body).includes(c.ignored)) return `${res.status} over the unknown ${c.ignored}`;
  const bad = envelopeProblem(res.body);
  if (bad) return `${res.status} ${bad}`;
  if (c.status !== undefined && res.status !== c.status) return `${res.status}, not ${c.status}`;
  if (c.field !== undefined && !loose && !namesField(res.body, c.field)) return `${res.status} without naming ${c.field}`;
  return undefined;
}

function describeCase(c: Case, res: Sent, what: string): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}...(${s.length})` : s);
  const type =
    c.headers['content-type'] ?? (c.headers['x-filter'] !== undefined ? `X-Filter ${cut(c.headers['x-filter'], 60)}` : '');
  const payload = c.payload === undefined ? '' : ` ${JSON.stringify(cut(c.payload, 100))}`;
  return `[${c.cls}] ${c.method} ${cut(c.url, 90)}${type ? ` (${type})` : ''}${payload} -> ${what}: ${cut(res.text, 160)}`;
}

/** Every hostile request for one operation. */
function casesFor(op: Operation, setting: Setting): Case[] {
  // Path cases last: an id that is read loosely reaches the real object, and what it does there
  // (a migration, a rescue) would otherwise make the node busy for the cases after it.
  return [
    ...fieldCases(op, setting),
    ...contentCases(op, setting),
    ...queryCases(op, setting),
    ...filterCases(op, setting),
    ...pathCases(op, setting),
  ];
}

/** Objects deleted after everything on them. */
const HOLDERS = new Set(['/node/instances/{nodeId}', '/domains/{domainId}']);

/** Deletes last, and the node (or domain) after everything on it, so each operation finds the objects it needs. */
function ordered(ops: Operation[]): Operation[] {
  const rank = (op: Operation) => (op.method !== 'DELETE' ? 0 : HOLDERS.has(op.path) ? 2 : 1);
  return [...ops].sort((a, b) => rank(a) - rank(b));
}

/** Sends the cases in order; returns what went wrong and whether any was accepted. */
async function run(app: TestApp, cases: Case[], failures: string[]): Promise<boolean> {
  let accepted = false;
  for (const c of cases) {
    const res = await send(app, c);
    const what = problem(c, res, accepted);
    if (res.status < 400) accepted = true;
    if (what) failures.push(describeCase(c, res, what));
  }
  return accepted;
}

function changed(before: State, after: State, failures: string[], when: string): void {
  const changes = stateChanges(before, after);
  if (changes.length) failures.push(`state changed after ${when}:\n      ${changes.join('\n      ')}`);
}

for (const dialect of DIALECTS) {
  describe(`bad input on every operation [${dialect}]`, () => {
    test('never a 5xx; a refusal is a 4xx in the envelope and changes nothing', async (t) => {
      // The world's domain sends NOTIFY to a documentation address, which never answers: its wait is kept short.
      const app = await operatorApp(t, dialect, { dnsTimeoutMs: 50 });
      const doc = await app.request('GET', '/v4/openapi.json', { token: null });
      assert.equal(doc.status, 200);
      const ops = operations(operationsOf(doc.body));
      const documented = new Set(ops.map((op) => op.operationId));
      const undocumented = (app.runtime.app?.routeTable ?? []).filter((r) => !documented.has(String(r.operationId)));
      assert.deepEqual(undocumented, [], 'every v4 route is an operation of the document, so the suite reaches it');
      const world = await furnish(app);

      // The state after the last operation, kept while nothing was accepted: no job to run, nothing to read again.
      let settled: State | undefined;
      for (const op of ordered(ops)) {
        await t.test(operationName(op.method, op.path), async () => {
          const cases = casesFor(op, {
            params: paramsFor(world, op.operationId),
            refs: world.refs,
            validBody: () => validBody(op.operationId, world),
            bodyLimit: app.runtime.ctx.config.bodyLimitBytes,
          });
          const refusals = cases.filter((c) => c.expect === 'refuse');
          const others = cases.filter((c) => c.expect === 'any');
          assert.ok(cases.length > 0, 'every operation gets hostile requests');
          const failures: string[] = [];
          if (!settled) await settle(app);
          const before = settled ?? (await stateOf(app));
          settled = undefined;
          const acceptedRefusal = await run(app, refusals, failures);
          let after = await stateOf(app);
          changed(before, after, failures, 'the requests that must be refused');
          // These may be accepted (the schema allows them); when none is, nothing may change either.
          const accepted = await run(app, others, failures);
          if (!accepted && others.length > 0) {
            const last = after;
            after = await stateOf(app);
            changed(last, after, failures, 'refused requests');
          }
          if (!acceptedRefusal && !accepted && failures.every((f) => !f.startsWith('state changed'))) settled = after;
          assert.equal(failures.length, 0, `${failures.length} of ${cases.length} requests:\n  ${failures.join('\n  ')}`);
        });
      }
    });
  });
}
