import { IpAllowanceBody, RegionStatusBody, RequestFaultBody, TransitionBody } from '../admin/admin.schema.ts';
import { advanceClock, clockView } from '../admin/clock.service.ts';
import { clearFaults, listFaults, type RequestFaultChange, setRegionStatus, setRequestFault } from '../admin/faults.service.ts';
import type { RegionStatus } from '../admin/operator-state.ts';

import { advanceJob, advanceTransition, listTransitions, setTransition, transitionChange } from '../admin/transitions.service.ts';
import type { Context } from '../context.ts';
import { getNodeNftables } from '../domain/firewalls/node-nftables.service.ts';
import { setNodeIpAllowance } from '../domain/networking/node-ip-allowance.service.ts';
import { getNodePorts } from '../domain/nodes/compute/node-ports.service.ts';
import { enterMaintenance, powerOffUnexpectedly } from '../domain/nodes/lifecycle/node-faults.service.ts';
import { fail } from '../errors.ts';
import { json } from './admin-state-commands.ts';
import type { Command } from './main.ts';
import { checked, numeric, text, tool, type Values, wholeNumber } from './tool.ts';

function required(values: Values, name: string): string {
  const value = text(values, name);
  if (!value) throw fail.badRequest(`${name} is required`, name);
  return value;
}

export async function runTransitions(ctx: Context): Promise<string> {
  return json({ data: await listTransitions(ctx) });
}

export async function runTransitionSet(ctx: Context, values: Values): Promise<string> {
  const mode = values.manual ? 'manual' : values.default ? 'default' : undefined;
  const body = checked<{ seconds?: number; mode?: string }>(TransitionBody, { seconds: numeric(values, 'seconds'), mode });
  return json({ data: await setTransition(ctx, required(values, 'kind'), transitionChange(body)) });
}

export async function runTransitionAdvance(ctx: Context, values: Values): Promise<string> {
  return json(await advanceTransition(ctx, required(values, 'kind')));
}

export async function runJobAdvance(ctx: Context, values: Values): Promise<string> {
  return json(await advanceJob(ctx, wholeNumber(values, 'job', 'a job id')));
}

export async function runClock(ctx: Context): Promise<string> {
  return json(clockView(ctx));
}

export async function runClockAdvance(ctx: Context, values: Values): Promise<string> {
  const seconds = numeric(values, 'seconds');
  if (seconds === undefined) throw fail.badRequest('seconds is required', 'seconds');
  if (!(seconds > 0)) throw fail.badRequest('Must be more than 0', 'seconds');
  return json(await advanceClock(ctx, seconds));
}

export async function runFaults(ctx: Context): Promise<string> {
  return json(await listFaults(ctx));
}

export async function runFaultsSet(ctx: Context, values: Values): Promise<string> {
  const body = checked<RequestFaultChange>(RequestFaultBody, {
    error_rate: numeric(values, 'error-rate'),
    latency_ms: numeric(values, 'latency-ms'),
    match: text(values, 'match'),
    status: numeric(values, 'status'),
  });
  return json(await setRequestFault(ctx, body));
}

export async function runFaultsClear(ctx: Context): Promise<string> {
  return json(await clearFaults(ctx));
}

export async function runRegionSet(ctx: Context, values: Values): Promise<string> {
  const body = checked<{ status: RegionStatus }>(RegionStatusBody, { status: text(values, 'status') });
  return json(await setRegionStatus(ctx, required(values, 'region'), body.status));
}

export async function runNodeMaintenanceJson(ctx: Context, values: Values): Promise<string> {
  await enterMaintenance(ctx, wholeNumber(values, 'node', 'a node id'));
  return json({ status: 'stopped' });
}

export async function runNodePowerOffJson(ctx: Context, values: Values): Promise<string> {
  const outcome = await powerOffUnexpectedly(ctx, wholeNumber(values, 'node', 'a node id'));
  return json({ status: 'offline', watchdog_boot: outcome.watchdogBoot });
}

export async function runNodeIpAllowance(ctx: Context, values: Values): Promise<string> {
  const nodeId = wholeNumber(values, 'node', 'a node id');
  const body = checked<{ public_ipv4: number }>(IpAllowanceBody, { public_ipv4: numeric(values, 'public-ipv4') });
  return json(await setNodeIpAllowance(ctx, nodeId, body.public_ipv4));
}

/** The ruleset text itself (what `nft -f` takes), not the JSON of the endpoint. */
export async function runNodeFirewall(ctx: Context, values: Values): Promise<string> {
  return (await getNodeNftables(ctx, wholeNumber(values, 'node', 'a node id'))).ruleset;
}

export async function runNodePorts(ctx: Context, values: Values): Promise<string> {
  const { ports } = await getNodePorts(ctx, wholeNumber(values, 'node', 'a node id'));
  if (ports.length === 0) return 'no forwarded ports (bridge networking: the node is reached at its own addresses)\n';
  return ports.map((p) => `${p.guest}\t${p.address}:${p.host}\n`).join('');
}

const transitionKind = ['kind'] as const;

export const ADMIN_CONTROL_COMMANDS: Record<string, Command> = {
  'admin transitions': {
    summary: 'Every transition kind with its setting and held jobs',
    usage: 'admin transitions',
    options: {},
    run: tool(runTransitions),
  },
  'admin transitions set': {
    summary: 'Set how long a transition takes, or make it manual (kind `all` for every kind)',
    usage: 'admin transitions set <kind|all> (--seconds <n> | --manual | --default)',
    options: {
      seconds: { type: 'string', description: 'duration on the service clock' },
      manual: { type: 'boolean', description: 'hold the finish until advanced' },
      default: { type: 'boolean', description: 'back to the default duration (times CUMULO_TIME_SCALE)' },
    },
    positionals: transitionKind,
    run: tool(runTransitionSet),
  },
  'admin transitions advance': {
    summary: 'Finish every operation held by a manual transition of this kind',
    usage: 'admin transitions advance <kind>',
    options: {},
    positionals: transitionKind,
    run: tool(runTransitionAdvance),
  },
  'admin jobs advance': {
    summary: 'Run one held or waiting job now',
    usage: 'admin jobs advance <job-id>',
    options: {},
    positionals: ['job'],
    run: tool(runJobAdvance),
  },
  'admin clock': { summary: 'The service clock', usage: 'admin clock', options: {}, run: tool(runClock) },
  'admin clock advance': {
    summary: 'Move the service clock forward and run what became due',
    usage: 'admin clock advance --seconds <n>',
    options: { seconds: { type: 'string', description: 'how far (required)' } },
    run: tool(runClockAdvance),
  },
  'admin faults': {
    summary: 'The active request fault and region outages',
    usage: 'admin faults',
    options: {},
    run: tool(runFaults),
  },
  'admin faults set': {
    summary: 'Make a share of matching v4 requests fail with a 5xx and/or wait',
    usage: 'admin faults set [--error-rate <0..1>] [--latency-ms <n>] [--match "<METHOD> /path/*"] [--status 500|503]',
    options: {
      'error-rate': { type: 'string', description: 'share of matching requests that fail (default 0)' },
      'latency-ms': { type: 'string', description: 'delay added to every matching request (default 0)' },
      match: { type: 'string', description: 'method and glob on the path after /v4 (default *: every request)' },
      status: { type: 'string', description: 'status of the failures: 500 or 503 (default 503)' },
    },
    run: tool(runFaultsSet),
  },
  'admin faults clear': {
    summary: 'End the request fault and every region outage',
    usage: 'admin faults clear',
    options: {},
    run: tool(runFaultsClear),
  },
  'admin regions set': {
    summary: 'Mark a region as having an outage (creates there fail) or as ok',
    usage: 'admin regions set <region> --status outage|ok',
    options: { status: { type: 'string', description: 'outage or ok (required)' } },
    positionals: ['region'],
    run: tool(runRegionSet),
  },
  'admin nodes maintenance': {
    summary: 'Platform maintenance: the node ends up stopped',
    usage: 'admin nodes maintenance <node-id>',
    options: {},
    positionals: ['node'],
    run: tool(runNodeMaintenanceJson),
  },
  'admin nodes power-off': {
    summary: 'The node powers off unexpectedly; its shutdown watchdog may boot it',
    usage: 'admin nodes power-off <node-id>',
    options: {},
    positionals: ['node'],
    run: tool(runNodePowerOffJson),
  },
  'admin nodes ip-allowance': {
    summary: 'Let a node hold this many public IPv4 addresses in all (the answer to a request for more)',
    usage: 'admin nodes ip-allowance <node-id> --public-ipv4 <n>',
    options: { 'public-ipv4': { type: 'string', description: 'public IPv4 addresses the node may hold, 1 or more (required)' } },
    positionals: ['node'],
    run: tool(runNodeIpAllowance),
  },
  'admin nodes firewall': {
    summary: "Print a node's effective firewall (its enabled one, or none) as an nftables ruleset",
    usage: 'admin nodes firewall <node-id>',
    options: {},
    positionals: ['node'],
    run: tool(runNodeFirewall),
  },
  'admin nodes ports': {
    summary: "Print the host ports forwarded to a real node's guest ports: `GUEST<TAB>ADDRESS:PORT` a line (user networking)",
    usage: 'admin nodes ports <node-id>',
    options: {},
    positionals: ['node'],
    run: tool(runNodePorts),
  },
};
