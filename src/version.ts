import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

export const VERSION: string = pkg.version;
