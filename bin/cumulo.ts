#!/usr/bin/env node
import { main } from '../src/cli/main.ts';

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`cumulo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
