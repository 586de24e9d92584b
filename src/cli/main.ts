import { parseArgs } from 'node:util';
import { VERSION } from '../version.ts';
import { ADMIN_CONTROL_COMMANDS } from './admin-control-commands.ts';
import { ADMIN_IPV6_COMMANDS } from './admin-ipv6-commands.ts';
import { ADMIN_MANAGED_COMMANDS } from './admin-managed-commands.ts';
import { adminHosts, adminInfo, adminReset, adminRestore, adminSnapshot } from './admin-state-commands.ts';
import { nodeConsole } from './console-command.ts';
import { faultNodeMaintenance, faultNodePowerOff } from './fault-commands.ts';
import { accountCreate, tokenCreate, userCreate, userSetPassword } from './identity-commands.ts';
import { IMAGE_COMMANDS } from './image-commands.ts';
import { agent, migrate, serve, worker } from './server-commands.ts';

export interface Command {
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean'; description: string }>;
  /** Names of the positional arguments after the command words, in order (values under those names). */
  positionals?: readonly string[];
  run(values: Record<string, string | boolean | undefined>): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  serve,
  worker,
  agent,
  migrate,
  'account create': accountCreate,
  'user create': userCreate,
  'user set-password': userSetPassword,
  'token create': tokenCreate,
  console: nodeConsole,
  'fault node-power-off': faultNodePowerOff,
  'fault node-maintenance': faultNodeMaintenance,
  'admin info': adminInfo,
  'admin hosts': adminHosts,
  'admin reset': adminReset,
  'admin snapshot': adminSnapshot,
  'admin restore': adminRestore,
  ...ADMIN_CONTROL_COMMANDS,
  ...ADMIN_IPV6_COMMANDS,
  ...ADMIN_MANAGED_COMMANDS,
  ...IMAGE_COMMANDS,
};

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(28)} ${c.summary}`);
  return [
    'Usage: cumulo <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Configuration comes from the environment (PORT, HOST, CUMULO_DATA_DIR, DATABASE_URL, ...; see docs/configuration.md).',
    '`cumulo --version` prints the version.',
    "Run `cumulo <command> --help` for a command's options.",
  ].join('\n');
}

function commandHelp(c: Command): string {
  const opts = Object.entries(c.options).map(
    ([o, d]) => `  --${o}${d.type === 'string' ? ' <value>' : ''}`.padEnd(28) + d.description,
  );
  return [`Usage: cumulo ${c.usage}`, '', c.summary, ...(opts.length ? ['', 'Options:', ...opts] : [])].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const words = argv.filter((a) => !a.startsWith('-'));
  // The longest run of leading words that names a command: `admin transitions set` before `admin transitions`.
  const name = [3, 2, 1].map((n) => words.slice(0, n).join(' ')).find((n) => n in COMMANDS);
  if (!name) {
    const wantsHelp = argv.length === 0 || argv.includes('--help') || argv.includes('-h') || words[0] === 'help';
    process[wantsHelp ? 'stdout' : 'stderr'].write(`${wantsHelp ? '' : `unknown command: ${words.join(' ')}\n\n`}${help()}\n`);
    return wantsHelp ? 0 : 2;
  }
  const command = COMMANDS[name] as Command;
  const rest = argv.slice(argv.indexOf(name.split(' ').at(-1) as string) + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(Object.entries(command.options).map(([k, v]) => [k, { type: v.type }])),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: Boolean(command.positionals?.length),
    });
    const names = command.positionals ?? [];
    if (parsed.positionals.length > names.length) throw new Error(`unexpected argument: ${parsed.positionals[names.length]}`);
    values = { ...parsed.values, ...Object.fromEntries(parsed.positionals.map((p, i) => [names[i], p])) };
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${commandHelp(command)}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  return command.run(values);
}
