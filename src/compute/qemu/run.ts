import { execFile } from 'node:child_process';

type RunOptions = { timeoutMs?: number; input?: string; okExitCodes?: readonly number[] };

/**
 * Runs `program` to completion (`input` on its standard input); an error carrying its stderr (and the
 * spawn error as its cause) when it exits with a code not in `okExitCodes` (0 alone unless told).
 */
export function run(program: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  const ok = options.okExitCodes ?? [0];
  return new Promise((resolve, reject) => {
    const limits = { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 600_000 };
    const child = execFile(program, args, limits, (error, stdout, stderr) => {
      if (!error || (typeof error.code === 'number' && ok.includes(error.code))) resolve(stdout);
      else reject(new Error(`${program} ${args.join(' ')} failed: ${stderr.trim() || error.message}`, { cause: error }));
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
