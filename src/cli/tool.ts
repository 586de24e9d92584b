import { pino } from 'pino';
import { loadConfig } from '../config.ts';
import type { Context } from '../context.ts';
import { startRuntime } from '../runtime.ts';
import type { Command } from './main.ts';

export type Values = Record<string, string | boolean | undefined>;

export function text(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Runs one command on a context of its own; logs go to stderr so stdout carries only the result. */
export function tool(run: (ctx: Context, values: Values) => Promise<string>): Command['run'] {
  return async (values) => {
    const config = loadConfig();
    const runtime = await startRuntime(config, { role: 'tool', logger: pino({ level: config.logLevel }, pino.destination(2)) });
    try {
      process.stdout.write(await run(runtime.ctx, values));
      return 0;
    } finally {
      await runtime.close();
    }
  };
}
