import { AddIpv6PoolBody, AddIpv6RangeBody } from '../admin/admin.schema.ts';
import type { Context } from '../context.ts';
import { addPool, addRange, removeBlock } from '../domain/networking/ipv6-operator.service.ts';
import { fail } from '../errors.ts';
import { json } from './admin-state-commands.ts';
import type { Command } from './main.ts';
import { checked, numeric, text, tool, type Values, wholeNumber } from './tool.ts';

export async function runAddRange(ctx: Context, values: Values): Promise<string> {
  const body = checked<{ node_id: number; prefix_length?: 64 | 56 }>(AddIpv6RangeBody, {
    node_id: wholeNumber(values, 'node', 'a node id'),
    prefix_length: numeric(values, 'prefix'),
  });
  return json(await addRange(ctx, body.node_id, body.prefix_length ?? 64));
}

export async function runAddPool(ctx: Context, values: Values): Promise<string> {
  const body = checked<{ account_id: number; region: string }>(AddIpv6PoolBody, {
    account_id: wholeNumber(values, 'account', 'an account id'),
    region: text(values, 'region'),
  });
  return json(await addPool(ctx, body.account_id, body.region));
}

export async function runRemoveBlock(ctx: Context, values: Values): Promise<string> {
  const range = text(values, 'range');
  if (!range) throw fail.badRequest('range is required', 'range');
  await removeBlock(ctx, range);
  return json({});
}

export const ADMIN_IPV6_COMMANDS: Record<string, Command> = {
  'admin ipv6 add-range': {
    summary: "Route a new IPv6 range (a /64 or /56 of its region's prefix) to a node",
    usage: 'admin ipv6 add-range <node-id> [--prefix 64|56]',
    options: { prefix: { type: 'string', description: 'prefix length of the range: 64 (default) or 56' } },
    positionals: ['node'],
    run: tool(runAddRange),
  },
  'admin ipv6 add-pool': {
    summary: "Give an account an IPv6 pool (a /124 of the region's prefix) routed to all its nodes there",
    usage: 'admin ipv6 add-pool --account <id> --region <region>',
    options: {
      account: { type: 'string', description: 'id of the account (required)' },
      region: { type: 'string', description: 'region of the pool (required)' },
    },
    run: tool(runAddPool),
  },
  'admin ipv6 remove': {
    summary: 'Take back the IPv6 pool or range that starts at this address',
    usage: 'admin ipv6 remove <range>',
    options: {},
    positionals: ['range'],
    run: tool(runRemoveBlock),
  },
};
