import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FACTS_PATH, REFERENCE_PATH, referenceFacts } from '../../scripts/reference-facts.ts';
import { liveSends, liveSendsNull } from '../clients/live-shapes.ts';
import { buildTestApp } from '../helpers/app.ts';
import {
  type AllowEntry,
  compareOperation,
  formatMismatch,
  isAllowed,
  type JsonObject,
  type Mismatch,
  operationName,
  operationsOf,
} from '../helpers/openapi-compare.ts';

const ALLOW_LIST = fileURLToPath(new URL('../fidelity-allowlist.json', import.meta.url));

/** The reference's facts, kept in the repository (scripts/reference-facts.ts makes them from the reference). */
let referenceCache: JsonObject | undefined;
function loadReference(): JsonObject {
  referenceCache ??= JSON.parse(fs.readFileSync(FACTS_PATH, 'utf8')) as JsonObject;
  return referenceCache;
}

function loadAllowList(): AllowEntry[] {
  const raw = JSON.parse(fs.readFileSync(ALLOW_LIST, 'utf8')) as { entries?: unknown };
  assert.ok(Array.isArray(raw.entries), 'the allow-list holds an "entries" array');
  return raw.entries.map((e: unknown, i: number) => {
    const entry = e as Partial<Record<keyof AllowEntry, unknown>>;
    for (const key of ['operation', 'path', 'reason'] as const) {
      assert.ok(typeof entry[key] === 'string' && entry[key] !== '', `allow-list entry ${i} needs a non-empty ${key}`);
    }
    return entry as AllowEntry;
  });
}

/**
 * A difference the live service's answers settle (test/clients/live/), where the description is
 * silent: a field of a later revision than the reference's that it sends, or a field it sends null
 * in (or never null in) where the reference says otherwise. Served as it does; checked there.
 */
function liveSettles(m: Mismatch): boolean {
  if (!m.path.startsWith('response.')) return false;
  const at = m.path.slice('response.'.length);
  if (m.kind === 'property') return m.expected === 'absent' && liveSends(m.operation, at);
  if (m.kind === 'nullable') return liveSendsNull(m.operation, at) === (m.actual === 'nullable');
  return false;
}

// The document does not depend on the database, so one dialect is enough here.
describe('generated API document against the reference (4.106.1)', () => {
  const referenceHere = fs.existsSync(REFERENCE_PATH);
  test('the kept reference facts are what scripts/reference-facts.ts makes from the reference now', {
    skip: referenceHere ? false : `${REFERENCE_PATH} is not beside the repository; the kept facts are used as they are`,
  }, () => {
    const made = referenceFacts(fs.readFileSync(REFERENCE_PATH, 'utf8'));
    assert.ok(
      fs.readFileSync(FACTS_PATH, 'utf8') === made,
      `${FACTS_PATH} is out of date with the reference: run node scripts/reference-facts.ts`,
    );
  });

  test('the allow-list names reference operations (or whole extra ones), once each, with a reason', () => {
    const reference = loadReference();
    const known = new Set(operationsOf(reference).map((o) => operationName(o.method, o.path)));
    const seen = new Set<string>();
    for (const entry of loadAllowList()) {
      // Only a whole extra operation (path "operation") may be one the reference lacks; anything else is a typo.
      assert.ok(
        known.has(entry.operation) || entry.path === 'operation',
        `allow-list: ${entry.operation} is not an operation of the reference`,
      );
      const key = `${entry.operation} ${entry.path}`;
      assert.ok(!seen.has(key), `allow-list: ${key} is listed twice`);
      seen.add(key);
    }
  });

  test('every served operation matches the reference', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const res = await app.request('GET', '/v4/openapi.json', { token: null });
    assert.equal(res.status, 200);
    const doc = res.body as JsonObject;
    const reference = loadReference();
    const allow = loadAllowList();
    const operations = operationsOf(doc);
    assert.ok(operations.length > 0, 'the document lists operations');

    const found: Mismatch[] = [];
    for (const { method, path } of operations) {
      await t.test(operationName(method, path), () => {
        const mismatches = compareOperation(reference, doc, method, path);
        found.push(...mismatches);
        const unexpected = mismatches.filter((m) => !isAllowed(m, allow) && !liveSettles(m));
        assert.equal(unexpected.length, 0, `differences from the reference:\n  ${unexpected.map(formatMismatch).join('\n  ')}`);
      });
    }

    await t.test('no allow-list entry for a served operation is stale', () => {
      const served = new Set(operations.map((o) => operationName(o.method, o.path)));
      const stale = allow.filter((a) => served.has(a.operation) && !found.some((m) => isAllowed(m, [a])));
      assert.deepEqual(
        stale.map((a) => `${a.operation} ${a.path}`),
        [],
        'these allow-list entries match no difference any more; remove them',
      );
      const settled = allow.filter((a) => {
        const covered = found.filter((m) => isAllowed(m, [a]));
        return covered.length > 0 && covered.every(liveSettles);
      });
      assert.deepEqual(
        settled.map((a) => `${a.operation} ${a.path}`),
        [],
        'the live shapes settle these differences already (test/clients/live/); remove the entries',
      );
    });
  });
});
