import type { Context } from '../context.ts';
import { revealCredential } from '../domain/managed/credentials/credential-reveal.service.ts';
import { revealManagedSshKey } from '../domain/managed/credentials/managed-ssh-key.service.ts';
import { json } from './admin-state-commands.ts';
import type { Command } from './main.ts';
import { tool, type Values, wholeNumber } from './tool.ts';

export async function runRevealCredential(ctx: Context, values: Values): Promise<string> {
  return json(await revealCredential(ctx, wholeNumber(values, 'credential', 'a credential id')));
}

export async function runRevealSshKey(ctx: Context, values: Values): Promise<string> {
  return json(await revealManagedSshKey(ctx, wholeNumber(values, 'account', 'an account id')));
}

export const ADMIN_MANAGED_COMMANDS: Record<string, Command> = {
  'admin managed reveal-credential': {
    summary: "Print a managed credential's username and password, decrypted (sets its last_decrypted)",
    usage: 'admin managed reveal-credential <credential-id>',
    options: {},
    positionals: ['credential'],
    run: tool(runRevealCredential),
  },
  'admin managed reveal-ssh-key': {
    summary: "Print an account's managed SSH key pair, the private key decrypted",
    usage: 'admin managed reveal-ssh-key <account-id>',
    options: {},
    positionals: ['account'],
    run: tool(runRevealSshKey),
  },
};
