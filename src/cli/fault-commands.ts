import type { Context } from '../context.ts';
import { enterMaintenance, powerOffUnexpectedly } from '../domain/nodes/lifecycle/node-faults.service.ts';
import { fail } from '../errors.ts';
import type { Command } from './main.ts';
import { text, tool, type Values } from './tool.ts';

function nodeId(values: Values): number {
  const raw = text(values, 'node') ?? '';
  if (!/^\d+$/.test(raw)) throw fail.badRequest('Must be a node id (a whole number)', 'node');
  return Number(raw);
}

export async function runNodePowerOff(ctx: Context, values: Values): Promise<string> {
  const outcome = await powerOffUnexpectedly(ctx, nodeId(values));
  return `status=offline\nwatchdog_boot=${outcome.watchdogBoot}\n`;
}

export async function runNodeMaintenance(ctx: Context, values: Values): Promise<string> {
  await enterMaintenance(ctx, nodeId(values));
  return 'status=stopped\n';
}

const nodeOption = { node: { type: 'string' as const, description: 'id of the node (required)' } };

export const faultNodePowerOff: Command = {
  summary: 'Power a running node off as if it had crashed (the shutdown watchdog may boot it)',
  usage: 'fault node-power-off --node <id>',
  options: nodeOption,
  run: tool(runNodePowerOff),
};

export const faultNodeMaintenance: Command = {
  summary: 'Put a node through platform maintenance: it ends up stopped',
  usage: 'fault node-maintenance --node <id>',
  options: nodeOption,
  run: tool(runNodeMaintenance),
};
