import { execFile } from 'node:child_process';

/** Runs `program` to completion; an error carrying its stderr when it exits non-zero. */
export function run(program: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 600_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${program} ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}
