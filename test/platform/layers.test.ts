import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
/** The layers under the groups: they serve every group and name none. */
const LOWER_LAYERS = ['db', 'jobs', 'http', 'dns', 'blob', 'secrets', 'time', 'compute', 'net'];
/** Where the groups live. */
const GROUPS = ['domain', 'admin'];

/** Every module a file names: imports and re-exports (type-only too), dynamic imports, module augmentations. */
const SPECIFIER =
  /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]|\bimport\s+['"]([^'"]+)['"]|\bdeclare\s+module\s+['"]([^'"]+)['"]/g;

function specifiersOf(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((m) => m.slice(1).find((s) => s !== undefined) ?? '');
}

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The group a relative specifier of `file` reaches into, if any (packages and node: modules reach none). */
function groupReached(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const [top] = path.relative(SRC, path.resolve(path.dirname(file), specifier)).split(path.sep);
  return top !== undefined && GROUPS.includes(top) ? top : null;
}

test('the specifier scan finds static, type-only, multi-line, dynamic and augmenting imports', () => {
  const source = [
    "import type { A } from '../domain/a.ts';",
    'import {\n  B,\n  C,\n} from "../admin/b.ts";',
    "export * from './c.ts';",
    "const d = await import('../domain/d.ts');",
    "import '../domain/e.ts';",
    "declare module '../domain/f.ts' {}",
    "import fs from 'node:fs';",
  ].join('\n');
  assert.deepEqual(specifiersOf(source), [
    '../domain/a.ts',
    '../admin/b.ts',
    './c.ts',
    '../domain/d.ts',
    '../domain/e.ts',
    '../domain/f.ts',
    'node:fs',
  ]);
  const file = path.join(SRC, 'db', 'x.ts');
  assert.equal(groupReached(file, '../domain/a.ts'), 'domain');
  assert.equal(groupReached(path.join(SRC, 'http', 'deep', 'x.ts'), '../../admin/b.ts'), 'admin');
  assert.equal(groupReached(file, './domain/a.ts'), null);
  assert.equal(groupReached(file, '../context.ts'), null);
  assert.equal(groupReached(file, 'kysely'), null);
});

test(`${LOWER_LAYERS.join(', ')} import nothing from ${GROUPS.map((g) => `src/${g}`).join(' or ')}`, () => {
  const files = LOWER_LAYERS.flatMap((layer) => tsFiles(path.join(SRC, layer)));
  assert.ok(files.length > 50, `found only ${files.length} files under the lower layers`);
  const offences = files.flatMap((file) =>
    specifiersOf(fs.readFileSync(file, 'utf8'))
      .filter((specifier) => groupReached(file, specifier) !== null)
      .map((specifier) => `${path.relative(SRC, file)} imports ${specifier}`),
  );
  assert.deepEqual(offences, []);
});
