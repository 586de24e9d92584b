import { execFile } from 'node:child_process';

/**
 * Runs `program` to completion; an error carrying its stderr (and the spawn error as its cause) when it
 * exits with a code not in `okExitCodes` (0 alone unless told).
 */
export function run(
  program: string,
  args: readonly string[],
  options: { timeoutMs?: number; okExitCodes?: readonly number[] } = {},
): Promise<string> {
  const ok = options.okExitCodes ?? [0];
  return new Promise((resolve, reject) => {
    execFile(program, args, { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 600_000 }, (error, stdout, stderr) => {
      if (!error || (typeof error.code === 'number' && ok.includes(error.code))) resolve(stdout);
      else reject(new Error(`${program} ${args.join(' ')} failed: ${stderr.trim() || error.message}`, { cause: error }));
    });
  });
}
