import type { Context } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { UpdateAccountBody } from '../domain/account/account.schema.ts';
import { getAccount, openAccount } from '../domain/account/account.service.ts';
import { PasswordBody } from '../domain/account/password.ts';
import { operatorIn } from '../domain/account/principal.ts';
import { CreateUserBody } from '../domain/account/user.schema.ts';
import { addUser, findUserAnywhere, setUserPassword } from '../domain/account/user.service.ts';
import { CreateTokenBody } from '../domain/profile/token.schema.ts';
import { createToken } from '../domain/profile/token.service.ts';
import { fail } from '../errors.ts';
import type { Command } from './main.ts';
import { checked, text, tool, type Values } from './tool.ts';

/** A username from the local part of an email address, made to fit the username rules. */
export function usernameFromEmail(email: string): string {
  const local = (email.split('@')[0] ?? '')
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/[_-]{2,}/g, '-')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, 32)
    .replace(/[_-]+$/, '');
  return local.length >= 3 ? local : `user-${local || 'new'}`.slice(0, 32);
}

export async function runAccountCreate(ctx: Context, values: Values): Promise<string> {
  const email = text(values, 'email');
  const body = checked<{ username: string; email: string }>(CreateUserBody, {
    email,
    username: text(values, 'username') ?? (email ? usernameFromEmail(email) : undefined),
  });
  checked(UpdateAccountBody, { email });
  const { accountId, username } = await openAccount(ctx, body);
  return `account_id=${accountId}\nusername=${username}\n`;
}

/** A password given on standard input: its first line, without the line break. */
export async function passwordFrom(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const password = text.split(/\r?\n/, 1)[0] ?? '';
  return checked<{ password: string }>(PasswordBody, { password }).password;
}

export async function runUserCreate(ctx: Context, values: Values, input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const accountText = text(values, 'account') ?? '';
  if (!/^\d+$/.test(accountText)) throw fail.badRequest('Must be an account id (a whole number)', 'account');
  const accountId = Number(accountText);
  await getAccount(ctx, accountId);
  const body = checked<{ username: string; email: string; restricted: boolean }>(CreateUserBody, {
    username: text(values, 'username'),
    email: text(values, 'email'),
    restricted: values.restricted === true,
  });
  const password = values['password-stdin'] === true ? await passwordFrom(input) : undefined;
  const user = await inTransaction(ctx.db, (trx) => addUser(trx, ctx, operatorIn(accountId), body));
  if (password !== undefined) await setUserPassword(ctx, user.username, password);
  return `username=${user.username}\n`;
}

export async function runUserSetPassword(ctx: Context, values: Values, input: NodeJS.ReadableStream = process.stdin) {
  const username = text(values, 'username');
  if (!username) throw fail.badRequest('username is required', 'username');
  await setUserPassword(ctx, username, await passwordFrom(input));
  return `username=${username}\n`;
}

export async function runTokenCreate(ctx: Context, values: Values): Promise<string> {
  const username = text(values, 'username');
  if (!username) throw fail.badRequest('username is required', 'username');
  const body = checked<{ scopes?: string; label?: string; expiry?: string }>(CreateTokenBody, {
    scopes: text(values, 'scopes'),
    label: text(values, 'label'),
    expiry: text(values, 'expiry'),
  });
  const user = await findUserAnywhere(ctx, username);
  const token = await createToken(ctx, operatorIn(user.account_id), { accountId: user.account_id, userId: user.id }, '*', body);
  return `${token.token}\n`;
}

export const accountCreate: Command = {
  summary: 'Create an account with an unrestricted first user',
  usage: 'account create --email <email> [--username <name>]',
  options: {
    email: { type: 'string', description: 'email address of the account and its first user (required)' },
    username: { type: 'string', description: 'username of the first user (default: from the email address)' },
  },
  run: tool(runAccountCreate),
};

export const userCreate: Command = {
  summary: 'Create a user in an account',
  usage: 'user create --account <id> --username <name> --email <email> [--restricted] [--password-stdin]',
  options: {
    account: { type: 'string', description: 'id of the account (required)' },
    username: { type: 'string', description: 'username, unique across the service (required)' },
    email: { type: 'string', description: "the user's email address (required)" },
    restricted: { type: 'boolean', description: 'make the user restricted: it can do only what grants allow' },
    'password-stdin': {
      type: 'boolean',
      description: "read the user's password (8 to 128 characters) from the first line of stdin",
    },
  },
  run: tool(runUserCreate),
};

export const userSetPassword: Command = {
  summary: "Set a user's password, read from the first line of stdin (8 to 128 characters)",
  usage: 'user set-password --username <name> < password-file',
  options: { username: { type: 'string', description: 'the user (required)' } },
  run: tool(runUserSetPassword),
};

export const tokenCreate: Command = {
  summary: 'Create a personal access token and print it',
  usage: 'token create --username <name> [--scopes <scopes>] [--label <label>] [--expiry <date-time>]',
  options: {
    username: { type: 'string', description: 'the user the token acts as (required)' },
    scopes: { type: 'string', description: 'scopes, e.g. "nodes:read_write events:read_only" (default: *)' },
    label: { type: 'string', description: 'a label for the token' },
    expiry: { type: 'string', description: 'ISO 8601 date-time after which the token stops working (default: never)' },
  },
  run: tool(runTokenCreate),
};
