/**
 * Builds what the package runs from (npm pack's prepack): src/ compiled to JavaScript in dist/, with
 * type declarations for `import { startCumulo } from 'cumulo'`. Node.js strips no types under
 * node_modules, so an installed Cumulo cannot run its TypeScript sources as a checkout does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
fs.rmSync(path.join(ROOT, 'dist'), { recursive: true, force: true });
const tsc = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (tsc.error) throw tsc.error;
process.exit(tsc.status ?? 1);
