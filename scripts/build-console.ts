/**
 * Builds the web console into console/dist (npm install's prepare, npm run build:console).
 *
 * The build is skipped when console/dist was built from the same sources and dependencies: the
 * first `npx cumulo` in a checkout installs the project into npx's cache as a folder dependency,
 * which runs prepare again, and rebuilding there would cost seconds for nothing. A build is made
 * beside console/dist and swapped in, so a running server never finds the console half-written.
 * Its text files get brotli and gzip copies, which the server sends to browsers that take them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'vite';

const ROOT = path.resolve(import.meta.dirname, '..');
const CONSOLE = path.join(ROOT, 'console');
const DIST = path.join(CONSOLE, 'dist');
const STAMP = '.source-hash';

/** The console's sources (every file under console/ but builds) and the lock file, by path and content. */
function sourceHash(): string {
  const hash = crypto.createHash('sha256');
  const files = fs
    .readdirSync(CONSOLE, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => !path.relative(CONSOLE, file).startsWith('dist'));
  for (const file of [...files, path.join(ROOT, 'package-lock.json')].sort()) {
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Text files the server sends compressed: each gets a brotli and a gzip copy beside it, made once here. */
const COMPRESSED = /\.(html|js|css|svg|json|txt|map)$/;

function compressAll(dir: string): void {
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSED.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(
      `${file}.br`,
      zlib.brotliCompressSync(bytes, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      }),
    );
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }));
  }
}

const hash = sourceHash();
const stamp = path.join(DIST, STAMP);
if (process.argv.includes('--if-changed') && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) {
  process.exit(0);
}

const next = `${DIST}.next`;
const old = `${DIST}.old`;
fs.rmSync(next, { recursive: true, force: true });
await build({ configFile: path.join(CONSOLE, 'vite.config.ts'), build: { outDir: next } });
compressAll(next);
fs.writeFileSync(path.join(next, STAMP), hash);
fs.rmSync(old, { recursive: true, force: true });
if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
fs.renameSync(next, DIST);
fs.rmSync(old, { recursive: true, force: true });
