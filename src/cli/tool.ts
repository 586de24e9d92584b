import type { FastifySchema } from 'fastify';
import type { TSchema } from 'typebox';
import { loadConfig } from '../config.ts';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { validationErrors, validatorCompiler } from '../http/validation.ts';
import { stderrLogger } from '../logger.ts';
import { startRuntime } from '../runtime.ts';
import type { Command } from './main.ts';

export type Values = Record<string, string | boolean | undefined>;

export function text(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Checks command input against the same schema the API uses, with the same messages. */
export function checked<T>(schema: TSchema, value: Record<string, unknown>): T {
  const validate = validatorCompiler({ schema: schema as FastifySchema, httpPart: 'body', method: 'POST', url: '' }) as {
    (v: unknown): boolean;
    errors?: Parameters<typeof validationErrors>[0] | null;
  };
  const input = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  if (!validate(input)) throw fail.invalid(validationErrors(validate.errors ?? [], 'body'));
  return input as T;
}

/** A numeric option as a number; a 400 naming the option when it is not one. */
export function numeric(values: Values, name: string): number | undefined {
  const raw = text(values, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+(\.\d+)?$/.test(raw.trim())) throw fail.badRequest('Must be a number', name);
  return Number(raw);
}

/** A whole-number id given as a positional argument or option. */
export function wholeNumber(values: Values, name: string, what: string): number {
  const raw = text(values, name) ?? '';
  if (!/^\d+$/.test(raw)) throw fail.badRequest(`Must be ${what} (a whole number)`, name);
  return Number(raw);
}

/** Runs one command on a context of its own; logs go to stderr so stdout carries only the result. */
export function tool(run: (ctx: Context, values: Values) => Promise<string>): Command['run'] {
  return async (values) => {
    const config = loadConfig();
    const runtime = await startRuntime(config, { role: 'tool', logger: stderrLogger(config.logLevel, config.logFormat) });
    try {
      process.stdout.write(await run(runtime.ctx, values));
      return 0;
    } finally {
      await runtime.close();
    }
  };
}
