import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { installationNetns } from './compute/qemu/bridge-names.ts';
import { parseHostPort } from './dns/host-port.ts';
import { parseRange } from './net/ip-address.ts';
import { decodeKey } from './secrets/key-file.ts';
import { DEFAULT_PASSWORD_HASH_COST, MAX_PASSWORD_HASH_COST, MIN_PASSWORD_HASH_COST } from './secrets/password-hash.ts';

/** The shortest CUMULO_BOOTSTRAP_TOKEN: 32 characters, 128 bits if they are as random as hex digits (listings never show them). */
export const BOOTSTRAP_TOKEN_MIN_LENGTH = 32;

/** A DNS name of two or more labels whose last one is not a number (so never an IPv4 address), in lower case. */
const HOSTNAME_PATTERN = '^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';

const LogLevel = Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)));

export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  dataDir: Type.String({ minLength: 1 }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  /** At least 32 characters: a listed token shows up to 16 of them, and 128 bits must stay unknown. */
  bootstrapToken: Type.Optional(Type.String({ minLength: BOOTSTRAP_TOKEN_MIN_LENGTH, maxLength: 128 })),
  /** The password of `admin`, set at every start; 8 to 128 characters, not only white space (as PasswordBody). */
  bootstrapPassword: Type.Optional(Type.String({ minLength: 8, maxLength: 128, pattern: '\\S' })),
  timeScale: Type.Number({ exclusiveMinimum: 0 }),
  logLevel: LogLevel,
  /** `json` or `pretty` (short lines); unset, pretty on a terminal and JSON otherwise (src/logger.ts). */
  logFormat: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('pretty')])),
  catalogPath: Type.Optional(Type.String({ minLength: 1 })),
  /** The public address clients use; upload URLs and entity urls are built on it. */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** The installation's own DNS name: default reverse DNS names (`203-0-113-7.ip.<hostname>`) are built on it. */
  hostname: Type.String({ maxLength: 253, pattern: HOSTNAME_PATTERN }),
  /** The DNS servers forward lookups ask (`ip`, `ip:port`, `[v6]:port`); unset, the system's. */
  dnsResolvers: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  /** How long a forward DNS lookup may take before it counts as failed. */
  dnsTimeoutMs: Type.Integer({ minimum: 1, maximum: 60000 }),
  /** Where `serve` runs the authoritative nameserver, UDP and TCP (`ip:port`, `[ipv6]:port`); unset, it does not. */
  dnsListen: Type.Optional(Type.String({ minLength: 1 })),
  /** The installation's nameservers: every zone's NS records, the first one its SOA's primary. */
  dnsNameservers: Type.Array(Type.String({ maxLength: 253, pattern: HOSTNAME_PATTERN }), { minItems: 1, maxItems: 13 }),
  /** The port slave domains ask their `master_ips` on (SOA checks and transfers). */
  dnsMasterPort: Type.Integer({ minimum: 1, maximum: 65535 }),
  /** The port NOTIFY messages go to at a domain's `axfr_ips` when its zone changes. */
  dnsNotifyPort: Type.Integer({ minimum: 1, maximum: 65535 }),
  /** How long after a change a zone is rendered (service-clock milliseconds, not scaled): the changes of that time share one render. */
  dnsRenderDelayMs: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
  /** How many of each an account may have (records: a domain); a create past it is refused. */
  limitRecordsPerDomain: Type.Integer({ minimum: 1 }),
  limitDomains: Type.Integer({ minimum: 1 }),
  limitFirewalls: Type.Integer({ minimum: 1 }),
  limitManagedServices: Type.Integer({ minimum: 1 }),
  limitTags: Type.Integer({ minimum: 1 }),
  /** CIDR ranges tenants' outbound connections may reach although the default refuses them (src/net/egress.ts). */
  egressAllow: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** CIDR ranges tenants' outbound connections never reach, whatever else allows them. */
  egressDeny: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /**
   * What runs nodes: `simulated` (statuses move on timers), `qemu` (a QEMU machine per node;
   * docs/compute.md) or `agents` (API servers and workers whose nodes run on `cumulo agent` hosts).
   */
  compute: Type.Union([Type.Literal('simulated'), Type.Literal('qemu'), Type.Literal('agents')]),
  /** The regions an agent serves (`cumulo agent`); every region when unset. */
  agentRegions: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** An agent silent this long (wall-clock ms) is taken as gone: its nodes show `offline`. */
  agentOfflineMs: Type.Integer({ minimum: 1000 }),
  /** How often an agent reports its host (wall-clock ms). */
  agentHeartbeatMs: Type.Integer({ minimum: 100 }),
  /** How qemu nodes are networked: `user` (no privileges, ports forwarded to 127.0.0.1) or `bridge` (root: a bridge per region). */
  nodeNetwork: Type.Union([Type.Literal('user'), Type.Literal('bridge')]),
  /** The network namespace bridge networking makes and holds the machines' bridges and taps in (`ip netns`). */
  nodeNetns: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
  /** Bridge networking: host ports nodes may reach (`53/udp`, `8080/tcp`); nothing else of the host. */
  nodeHostPorts: Type.Array(
    Type.String({
      pattern: '^([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])/(tcp|udp)$',
    }),
  ),
  /** Bridge networking: `on` masquerades nodes' IPv4 traffic to the world behind the host's addresses. */
  nodeNat: Type.Union([Type.Literal('on'), Type.Literal('off')]),
  /** Memory (MB) the host gives running nodes altogether; a boot past it is refused. */
  computeMemoryMb: Type.Integer({ minimum: 64 }),
  /** How many times the host's storage for disks their sizes may add up to (sparse disks take what they have written). */
  diskOvercommit: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
  /** MB a machine's console log grows to before it is rotated (one previous log is kept). */
  consoleLogMb: Type.Integer({ minimum: 1, maximum: 1024 }),
  /** Guest TCP ports forwarded to 127.0.0.1 in user networking, besides 22. */
  nodePorts: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 })),
  /** Whether `serve` runs the job worker in the same process. */
  inProcessWorker: Type.Boolean(),
  /** How often an idle worker looks for due jobs, in real milliseconds. */
  workerPollMs: Type.Integer({ minimum: 1 }),
  /** How many jobs of the kinds that wait on the network (probes, zone checks) one worker runs at once. */
  workerParallel: Type.Integer({ minimum: 1, maximum: 256 }),
  /** Seconds between two probes of an enabled managed service (simulated: scaled by the time scale). */
  managedProbeIntervalSec: Type.Integer({ minimum: 1, maximum: 86400 }),
  bodyLimitBytes: Type.Integer({ minimum: 1024 }),
  /** Origins whose browser pages may call the v4 API: `*` (any), a list of origins, or none (CORS off). */
  corsOrigins: Type.Union([Type.Literal('*'), Type.Array(Type.String({ pattern: '^https?://[^/]+$' }))]),
  /** The largest image upload accepted, compressed; enforced while the data streams in. */
  imageUploadMaxBytes: Type.Integer({ minimum: 1 }),
  /** The most an uploaded image may decompress to; refused while the data streams, and a deploy stops there. */
  imageUnpackedMaxBytes: Type.Integer({ minimum: 1 }),
  /** The most times its compressed size an uploaded image may decompress to, past its first GiB. */
  imageUnpackedMaxRatio: Type.Number({ minimum: 1 }),
  /** How long an automatic image (kept from a deleted node's disk) lives before a job removes it. */
  automaticImageRetentionDays: Type.Integer({ minimum: 1 }),
  /** Turns the admin API (`/admin/...`) on; its callers send it as a bearer token. */
  adminToken: Type.Optional(Type.String({ minLength: 16, maxLength: 128 })),
  /** The keys secrets in the database are sealed with (src/secrets/secret-box.ts); unset, a key file in the data dir. */
  secretKeys: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  /** Where the OAuth authorization server answers: `<path>/authorize` and `<path>/token`. */
  oauthPath: Type.String({ maxLength: 100, pattern: '^/[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$' }),
  /** Makes generated values and timestamps reproducible: a seeded random stream and a logical clock. */
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  /** With a seed: where the logical clock starts (ISO 8601 date-time). */
  startTime: Type.String({ format: 'date-time' }),
  /** With a seed: how far each API request moves the logical clock, in milliseconds (at least 1: each request gets a time of its own). */
  clockStepMs: Type.Integer({ minimum: 1 }),
  /** scrypt's cost for new password hashes, as log2 N: each step down halves the memory and time a check takes. */
  passwordHashCost: Type.Integer({ minimum: MIN_PASSWORD_HASH_COST, maximum: MAX_PASSWORD_HASH_COST }),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly bootstrapToken?: string;
  readonly bootstrapPassword?: string;
  readonly timeScale: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly logFormat?: 'json' | 'pretty';
  readonly catalogPath?: string;
  readonly publicUrl?: string;
  readonly hostname: string;
  readonly dnsResolvers?: readonly string[];
  readonly dnsTimeoutMs: number;
  readonly dnsListen?: string;
  readonly dnsNameservers: readonly string[];
  readonly dnsMasterPort: number;
  readonly dnsNotifyPort: number;
  readonly dnsRenderDelayMs: number;
  readonly limitRecordsPerDomain: number;
  readonly limitDomains: number;
  readonly limitFirewalls: number;
  readonly limitManagedServices: number;
  readonly limitTags: number;
  readonly egressAllow?: readonly string[];
  readonly egressDeny?: readonly string[];
  readonly compute: 'simulated' | 'qemu' | 'agents';
  readonly agentRegions?: readonly string[];
  readonly agentOfflineMs: number;
  readonly agentHeartbeatMs: number;
  readonly nodeNetwork: 'user' | 'bridge';
  readonly nodeNetns: string;
  readonly nodeHostPorts: readonly string[];
  readonly nodeNat: 'on' | 'off';
  readonly computeMemoryMb: number;
  readonly diskOvercommit: number;
  readonly consoleLogMb: number;
  readonly nodePorts: readonly number[];
  readonly inProcessWorker: boolean;
  readonly workerPollMs: number;
  readonly workerParallel: number;
  readonly managedProbeIntervalSec: number;
  readonly bodyLimitBytes: number;
  readonly corsOrigins: '*' | readonly string[];
  readonly imageUploadMaxBytes: number;
  readonly imageUnpackedMaxBytes: number;
  readonly imageUnpackedMaxRatio: number;
  readonly automaticImageRetentionDays: number;
  readonly adminToken?: string;
  readonly secretKeys?: readonly string[];
  readonly oauthPath: string;
  readonly seed?: number;
  readonly startTime: string;
  readonly clockStepMs: number;
  readonly passwordHashCost: number;
}

/** Settings a caller (a test, a command) may override; everything else comes from the environment. */
export type ConfigOverrides = { -readonly [K in keyof Config]?: Config[K] };

type Env = Record<string, string | undefined>;

/** The environment variable of each setting, so that a refusal names what the operator set. */
const ENV_NAMES: { readonly [K in keyof Config]: string } = {
  port: 'PORT',
  host: 'HOST',
  dataDir: 'CUMULO_DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  bootstrapToken: 'CUMULO_BOOTSTRAP_TOKEN',
  bootstrapPassword: 'CUMULO_BOOTSTRAP_PASSWORD',
  timeScale: 'CUMULO_TIME_SCALE',
  logLevel: 'LOG_LEVEL',
  logFormat: 'LOG_FORMAT',
  catalogPath: 'CUMULO_CATALOG',
  publicUrl: 'CUMULO_PUBLIC_URL',
  hostname: 'CUMULO_HOSTNAME',
  dnsResolvers: 'CUMULO_DNS_RESOLVERS',
  dnsTimeoutMs: 'CUMULO_DNS_TIMEOUT_MS',
  dnsListen: 'CUMULO_DNS_LISTEN',
  dnsNameservers: 'CUMULO_DNS_NAMESERVERS',
  dnsMasterPort: 'CUMULO_DNS_MASTER_PORT',
  dnsNotifyPort: 'CUMULO_DNS_NOTIFY_PORT',
  dnsRenderDelayMs: 'CUMULO_DNS_RENDER_DELAY_MS',
  limitRecordsPerDomain: 'CUMULO_LIMIT_RECORDS_PER_DOMAIN',
  limitDomains: 'CUMULO_LIMIT_DOMAINS',
  limitFirewalls: 'CUMULO_LIMIT_FIREWALLS',
  limitManagedServices: 'CUMULO_LIMIT_MANAGED_SERVICES',
  limitTags: 'CUMULO_LIMIT_TAGS',
  egressAllow: 'CUMULO_EGRESS_ALLOW',
  egressDeny: 'CUMULO_EGRESS_DENY',
  compute: 'CUMULO_COMPUTE',
  agentRegions: 'CUMULO_AGENT_REGIONS',
  agentOfflineMs: 'CUMULO_AGENT_OFFLINE_MS',
  agentHeartbeatMs: 'CUMULO_AGENT_HEARTBEAT_MS',
  nodeNetwork: 'CUMULO_NODE_NETWORK',
  nodeNetns: 'CUMULO_NODE_NETNS',
  nodeHostPorts: 'CUMULO_NODE_HOST_PORTS',
  nodeNat: 'CUMULO_NODE_NAT',
  computeMemoryMb: 'CUMULO_COMPUTE_MEMORY',
  diskOvercommit: 'CUMULO_DISK_OVERCOMMIT',
  consoleLogMb: 'CUMULO_CONSOLE_LOG_MB',
  nodePorts: 'CUMULO_NODE_PORTS',
  inProcessWorker: 'CUMULO_WORKER',
  workerPollMs: 'CUMULO_WORKER_POLL_MS',
  workerParallel: 'CUMULO_WORKER_PARALLEL',
  managedProbeIntervalSec: 'CUMULO_MANAGED_PROBE_INTERVAL',
  bodyLimitBytes: 'CUMULO_BODY_LIMIT',
  corsOrigins: 'CUMULO_CORS_ORIGINS',
  imageUploadMaxBytes: 'CUMULO_IMAGE_UPLOAD_MAX_BYTES',
  imageUnpackedMaxBytes: 'CUMULO_IMAGE_UNPACKED_MAX_BYTES',
  imageUnpackedMaxRatio: 'CUMULO_IMAGE_UNPACKED_MAX_RATIO',
  automaticImageRetentionDays: 'CUMULO_AUTOMATIC_IMAGE_RETENTION_DAYS',
  adminToken: 'CUMULO_ADMIN_TOKEN',
  secretKeys: 'CUMULO_SECRET_KEY',
  oauthPath: 'CUMULO_OAUTH_PATH',
  seed: 'CUMULO_SEED',
  startTime: 'CUMULO_START_TIME',
  clockStepMs: 'CUMULO_CLOCK_STEP_MS',
  passwordHashCost: 'CUMULO_PASSWORD_HASH_COST',
};

export class ConfigError extends Error {}

/** `*`, `off`, or origins separated by commas (`https://a.example,http://localhost:3000`). */
function corsOrigins(value: string | undefined): '*' | string[] {
  const text = (value ?? '*').trim();
  if (text === '*' || text === '') return '*';
  if (text === 'off') return [];
  return text
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter((o) => o !== '');
}

/** A host name as an operator may write it: any case, with or without the root's trailing dot. */
function hostName(text: string): string {
  return text.trim().toLowerCase().replace(/\.$/, '');
}

/** The public URL's host when it is a DNS name of two or more labels (not an address), else `cumulo.local`. */
function defaultHostname(publicUrl: string | undefined): string {
  let host = '';
  try {
    host = publicUrl ? hostName(new URL(publicUrl).hostname) : '';
  } catch {
    // Not a URL: the schema refuses it below.
  }
  return new RegExp(HOSTNAME_PATTERN).test(host) ? host : 'cumulo.local';
}

/** Comma-separated values, trimmed; unset or empty, none. */
function commaList(value: string | undefined): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return items.length > 0 ? items : undefined;
}

/** `ip`, `ip:port` or `[ipv6]:port` (port 0 too when listening), the forms a node:dns resolver takes. */
function isIpAndPort(text: string, options: { allowPortZero?: boolean } = {}): boolean {
  const parsed = parseHostPort(text, 53, options);
  return parsed !== null && net.isIP(parsed.host) !== 0;
}

/** Unset, empty or `off`: no nameserver. */
function dnsListen(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  return text === '' || text === 'off' ? undefined : text;
}

/** Comma-separated host names, as `hostName` takes them; unset or empty, none. */
function hostNames(value: string | undefined): string[] | undefined {
  const names = (value ?? '')
    .split(',')
    .map(hostName)
    .filter((s) => s !== '');
  return names.length > 0 ? names : undefined;
}

function numberOr(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  return Number(value);
}

/** Reads configuration from the environment; every setting is documented in docs/configuration.md. */
export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const raw = {
    port: numberOr(env.PORT, 8080),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.CUMULO_DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    bootstrapToken: env.CUMULO_BOOTSTRAP_TOKEN || undefined,
    bootstrapPassword: env.CUMULO_BOOTSTRAP_PASSWORD || undefined,
    timeScale: numberOr(env.CUMULO_TIME_SCALE, 1),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: env.LOG_FORMAT || undefined,
    catalogPath: env.CUMULO_CATALOG || undefined,
    publicUrl: env.CUMULO_PUBLIC_URL || undefined,
    hostname: env.CUMULO_HOSTNAME ? hostName(env.CUMULO_HOSTNAME) : undefined,
    // Unset or empty: the system's (/etc/resolv.conf).
    dnsResolvers: commaList(env.CUMULO_DNS_RESOLVERS),
    dnsTimeoutMs: numberOr(env.CUMULO_DNS_TIMEOUT_MS, 2000),
    dnsListen: dnsListen(env.CUMULO_DNS_LISTEN),
    dnsNameservers: hostNames(env.CUMULO_DNS_NAMESERVERS),
    dnsMasterPort: numberOr(env.CUMULO_DNS_MASTER_PORT, 53),
    dnsNotifyPort: numberOr(env.CUMULO_DNS_NOTIFY_PORT, 53),
    dnsRenderDelayMs: numberOr(env.CUMULO_DNS_RENDER_DELAY_MS, 1000),
    limitRecordsPerDomain: numberOr(env.CUMULO_LIMIT_RECORDS_PER_DOMAIN, 10_000),
    limitDomains: numberOr(env.CUMULO_LIMIT_DOMAINS, 1000),
    limitFirewalls: numberOr(env.CUMULO_LIMIT_FIREWALLS, 100),
    limitManagedServices: numberOr(env.CUMULO_LIMIT_MANAGED_SERVICES, 100),
    limitTags: numberOr(env.CUMULO_LIMIT_TAGS, 1000),
    egressAllow: commaList(env.CUMULO_EGRESS_ALLOW),
    egressDeny: commaList(env.CUMULO_EGRESS_DENY),
    compute: env.CUMULO_COMPUTE || 'simulated',
    agentRegions: commaList(env.CUMULO_AGENT_REGIONS),
    agentOfflineMs: numberOr(env.CUMULO_AGENT_OFFLINE_MS, 15_000),
    agentHeartbeatMs: numberOr(env.CUMULO_AGENT_HEARTBEAT_MS, 3_000),
    nodeNetwork: env.CUMULO_NODE_NETWORK || 'user',
    nodeNetns: env.CUMULO_NODE_NETNS || undefined,
    nodeHostPorts: (commaList(env.CUMULO_NODE_HOST_PORTS) ?? []).map((p) => (p.includes('/') ? p.toLowerCase() : `${p}/tcp`)),
    nodeNat: env.CUMULO_NODE_NAT || 'off',
    // Half the host's memory: the rest stays for the host and the server.
    computeMemoryMb: numberOr(env.CUMULO_COMPUTE_MEMORY, Math.floor(os.totalmem() / 2 / 1024 ** 2)),
    diskOvercommit: numberOr(env.CUMULO_DISK_OVERCOMMIT, 1),
    consoleLogMb: numberOr(env.CUMULO_CONSOLE_LOG_MB, 4),
    nodePorts: (commaList(env.CUMULO_NODE_PORTS) ?? []).map(Number),
    inProcessWorker: env.CUMULO_WORKER !== 'off',
    workerPollMs: numberOr(env.CUMULO_WORKER_POLL_MS, 250),
    workerParallel: numberOr(env.CUMULO_WORKER_PARALLEL, 8),
    managedProbeIntervalSec: numberOr(env.CUMULO_MANAGED_PROBE_INTERVAL, 60),
    bodyLimitBytes: numberOr(env.CUMULO_BODY_LIMIT, 1024 * 1024),
    corsOrigins: corsOrigins(env.CUMULO_CORS_ORIGINS),
    imageUploadMaxBytes: numberOr(env.CUMULO_IMAGE_UPLOAD_MAX_BYTES, 5 * 1024 ** 3),
    imageUnpackedMaxBytes: numberOr(env.CUMULO_IMAGE_UNPACKED_MAX_BYTES, 16 * 1024 ** 3),
    imageUnpackedMaxRatio: numberOr(env.CUMULO_IMAGE_UNPACKED_MAX_RATIO, 100),
    automaticImageRetentionDays: numberOr(env.CUMULO_AUTOMATIC_IMAGE_RETENTION_DAYS, 7),
    adminToken: env.CUMULO_ADMIN_TOKEN || undefined,
    secretKeys: commaList(env.CUMULO_SECRET_KEY),
    oauthPath: (env.CUMULO_OAUTH_PATH || '/oauth').replace(/\/+$/, ''),
    seed: env.CUMULO_SEED ? Number(env.CUMULO_SEED) : undefined,
    startTime: env.CUMULO_START_TIME || '2026-01-01T00:00:00Z',
    clockStepMs: numberOr(env.CUMULO_CLOCK_STEP_MS, 1000),
    passwordHashCost: numberOr(env.CUMULO_PASSWORD_HASH_COST, DEFAULT_PASSWORD_HASH_COST),
    ...overrides,
  };
  // Follows the public URL, whether it came from the environment or an override.
  raw.hostname ??= defaultHostname(raw.publicUrl);
  // Follows the data dir, whether it came from the environment or an override.
  raw.nodeNetns ??= installationNetns(raw.dataDir);
  raw.dnsNameservers ??= [`ns1.${raw.hostname}`, `ns2.${raw.hostname}`];
  for (const key of Object.keys(raw) as (keyof typeof raw)[]) {
    if (raw[key] === undefined) delete raw[key];
  }
  const problems = Value.Check(ConfigSchema, raw)
    ? []
    : [...Value.Errors(ConfigSchema, raw)].map((e) => {
        const key = e.instancePath.slice(1).split('/')[0] ?? '';
        return `${key in ENV_NAMES ? ENV_NAMES[key as keyof Config] : key || 'config'} ${e.message}`;
      });
  const badServers = (raw.dnsResolvers ?? []).filter((s) => !isIpAndPort(s));
  if (badServers.length > 0) {
    problems.push(`${ENV_NAMES.dnsResolvers} must list ip, ip:port or [ipv6]:port, not ${badServers.join(', ')}`);
  }
  if (raw.dnsListen !== undefined && !isIpAndPort(raw.dnsListen, { allowPortZero: true })) {
    problems.push(`${ENV_NAMES.dnsListen} must be ip:port or [ipv6]:port (or off), not ${raw.dnsListen}`);
  }
  for (const key of ['egressAllow', 'egressDeny'] as const) {
    const bad = (raw[key] ?? []).filter((range) => parseRange(range) === null);
    if (bad.length > 0) {
      problems.push(`${ENV_NAMES[key]} must list CIDR ranges (10.0.0.0/8, fd00::/8) or addresses, not ${bad.join(', ')}`);
    }
  }
  if (/^\/(v4|admin|metrics|healthz|readyz|assets)(\/|$)/.test(raw.oauthPath ?? '')) {
    problems.push(`${ENV_NAMES.oauthPath} must not be a path the server already serves (${raw.oauthPath})`);
  }
  // The message never repeats a key: it may be one with a typo.
  if (raw.secretKeys?.some((k) => decodeKey(k) === null)) {
    problems.push(
      `${ENV_NAMES.secretKeys} must hold 256-bit keys, each 64 hex digits or base64 of 32 bytes, separated by commas`,
    );
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return Object.freeze(raw as Config);
}
