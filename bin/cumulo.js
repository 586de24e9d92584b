#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';

// Every command loads most of the service: caching its compiled modules (in the system's temporary
// directory) makes each later start about a third faster. The import below comes after, on purpose.
enableCompileCache();
// A checkout runs its TypeScript sources as they are; an installed package holds only their build
// (Node.js strips types from no file under node_modules).
const sources = new URL('../src/cli/main.ts', import.meta.url);
const { main } = await import(existsSync(sources) ? sources.href : '../dist/cli/main.js');

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`cumulo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
