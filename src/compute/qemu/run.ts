import { execFile } from 'node:child_process';

type RunOptions = { timeoutMs?: number; input?: string };

/** Runs `program` to completion (`input` on its standard input); an error carrying its stderr when it exits non-zero. */
export function run(program: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const limits = { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 600_000 };
    const child = execFile(program, args, limits, (error, stdout, stderr) => {
      if (error) reject(new Error(`${program} ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
