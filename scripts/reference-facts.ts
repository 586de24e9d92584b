/**
 * Makes test/reference/openapi-facts.json from the reference (../shared/reference/openapi.yaml):
 * the same OpenAPI document with its facts only (paths, operations, parameters, status codes,
 * schemas, enums, scopes, grants) and no prose (descriptions, summaries, examples, code samples,
 * CLI hints). The tests read the kept file, so they need nothing outside the repository.
 *
 *   node scripts/reference-facts.ts      (rewrites the kept file when the reference is at hand)
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REFERENCE_PATH = fileURLToPath(new URL('../../shared/reference/openapi.yaml', import.meta.url));
export const FACTS_PATH = fileURLToPath(new URL('../test/reference/openapi-facts.json', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keywords that hold prose, examples or presentation, never a fact the tests check. */
const PROSE = new Set([
  'description',
  'summary',
  'title',
  'example',
  'examples',
  'externalDocs',
  'contact',
  'tags',
  'servers',
  'links',
]);
/** The reference's extensions that are facts; every other `x-` keyword (code samples, CLI hints) goes. */
const FACT_EXTENSIONS = new Set(['x-node-grant', 'x-node-filterable', 'x-node-charge']);
/** Keywords whose value is a map from names (paths, properties, status codes, media types) to objects. */
const NAMED_MAPS = new Set([
  'paths',
  'properties',
  'responses',
  'content',
  'headers',
  'schemas',
  'parameters',
  'requestBodies',
  'securitySchemes',
  'flows',
  'mapping',
]);
/** Keywords whose value is data, kept as it is. */
const VALUES = new Set(['enum', 'default', 'const', 'required']);

function isObject(v: Json): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An object of keywords (a schema, an operation, a response ...): prose keywords are dropped. */
function keywords(node: Json): Json {
  if (Array.isArray(node)) return node.map(keywords);
  if (!isObject(node)) return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (PROSE.has(key) || (key.startsWith('x-') && !FACT_EXTENSIONS.has(key))) continue;
    if (key === 'scopes' && isObject(value)) {
      // Scope names are facts; what each one says about itself is prose.
      out[key] = Object.fromEntries(Object.keys(value).map((scope) => [scope, '']));
    } else if (VALUES.has(key)) out[key] = value;
    else if (NAMED_MAPS.has(key) && isObject(value)) out[key] = named(value);
    else out[key] = keywords(value);
  }
  return out;
}

/** A map from names to keyword objects: every name stays, whatever it is called. */
function named(map: { [key: string]: Json }): Json {
  const out: { [key: string]: Json } = {};
  for (const [name, value] of Object.entries(map)) out[name] = typeof value === 'string' ? value : keywords(value);
  return out;
}

/** The facts of a reference document, as the text of the kept file. */
export function referenceFacts(referenceYaml: string): string {
  const reference = parse(referenceYaml) as { [key: string]: Json };
  const info = isObject(reference.info ?? null) ? (reference.info as { [key: string]: Json }) : {};
  const facts = { ...(keywords(reference) as { [key: string]: Json }), info: { version: info.version ?? null } };
  return `${JSON.stringify(facts, null, 1)}\n`;
}

if (import.meta.main) {
  if (!fs.existsSync(REFERENCE_PATH)) {
    console.error(`reference-facts: ${REFERENCE_PATH} is not here; the kept file stays as it is`);
    process.exit(1);
  }
  fs.writeFileSync(FACTS_PATH, referenceFacts(fs.readFileSync(REFERENCE_PATH, 'utf8')));
  console.log(`reference-facts: wrote ${FACTS_PATH}`);
}
