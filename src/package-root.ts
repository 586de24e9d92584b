import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder that holds Cumulo's package.json, catalog/ and console/dist: a checkout's root, where
 * the code runs from src/, or an installed package's, where it runs from dist/. Every file the
 * server reads from its own package is found from here, never from the working directory.
 */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = packageRoot(import.meta.dirname);
