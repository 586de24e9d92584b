import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { TestOptions } from 'node:test';

/** The programs some tests run, each with the Debian package that has it. */
export const SYSTEM_TOOLS = {
  nft: 'nftables',
  dig: 'bind9-dnsutils',
  'named-checkzone': 'bind9-utils',
  'ssh-keygen': 'openssh-client',
  // Chromium's headless shell, made for automation: the browser tests' pages cost a third less CPU
  // in it than in the whole browser (which the console's load bench keeps, as its users run it).
  'chromium-headless-shell': 'chromium-headless-shell',
  ssh: 'openssh-client',
  'qemu-system-x86_64': 'qemu-system-x86',
  mmdebstrap: 'mmdebstrap',
  mke2fs: 'e2fsprogs',
  debugfs: 'e2fsprogs',
  ip: 'iproute2',
  bridge: 'iproute2',
  nsenter: 'util-linux',
  // Guests stood for by network namespaces forge frames with it (test/helpers/raw-frames.ts).
  python3: 'python3',
  // The runnable blocks of README.md and docs/ (test/package/new-user.test.ts) call these, as readers do.
  curl: 'curl',
  jq: 'jq',
  openssl: 'openssl',
  'pytest-3': 'python3-pytest',
  // docs/scale-out.md makes its database with it.
  createdb: 'postgresql-client',
} as const;

export type SystemTool = keyof typeof SYSTEM_TOOLS;

/** Under CI a missing tool fails the tests that need it, so that a run never passes by skipping them. */
export function inCi(): boolean {
  const ci = process.env.CI ?? '';
  return ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** Where `tool` is: on PATH, or in the sbin directories Debian puts nft in and a user's PATH may leave out. */
export function findTool(tool: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    const candidate = path.join(dir, tool);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

export function missingTools(tools: readonly SystemTool[] = Object.keys(SYSTEM_TOOLS) as SystemTool[]): SystemTool[] {
  return tools.filter((tool) => findTool(tool) === undefined);
}

/** The one command that installs what `tools` need. */
export function installCommand(tools: readonly SystemTool[]): string {
  return `apt-get install -y ${[...new Set(tools.map((tool) => SYSTEM_TOOLS[tool]))].join(' ')}`;
}

/**
 * Options for a test or suite that runs `tools`: skipped, naming the packages, when one is missing;
 * under CI it runs anyway and fails where it calls `systemTool`.
 */
export function needs(...tools: SystemTool[]): TestOptions {
  const missing = missingTools(tools);
  if (missing.length === 0 || inCi()) return {};
  return { skip: `${missing.join(', ')} not found: ${installCommand(missing)}` };
}

/** The path of `tool`; an error naming its package when it is missing. */
export function systemTool(tool: SystemTool): string {
  const found = findTool(tool);
  if (found === undefined) throw new Error(`${tool} not found: install it with ${installCommand([tool])}`);
  return found;
}
