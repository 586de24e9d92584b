import type { CreateNode } from '../src/domain/nodes/node.schema.ts';

/** What the seed process hands to the benchmark. */
export interface SeedAccount {
  accountId: number;
  username: string;
  token: string;
  /** The account's node ids (only for the first accounts; the others are left empty). */
  nodeIds: number[];
}

export interface SeedResult {
  accounts: SeedAccount[];
  nodes: number;
  /** Writing accounts, tokens and nodes. */
  seconds: number;
  /** Running the provisioning jobs afterwards (0 when not asked for). */
  settleSeconds: number;
  /** How the nodes were written: `bulk` (createNodes, a batch a transaction) or `service` (createNode each). */
  path: string;
  regions: readonly string[];
}

export const SEED_REGIONS = ['us-east', 'us-central', 'eu-west', 'eu-central', 'ap-south', 'ap-northeast'] as const;
const TYPES = ['g6-nanode-1', 'g6-standard-1', 'g6-standard-2'] as const;
const IMAGES = ['node/debian12', 'node/ubuntu24.04', 'node/almalinux9'] as const;
const ROLES = ['web', 'db', 'cache', 'worker', 'batch'] as const;
const ENVS = ['prod', 'staging', 'dev'] as const;
const TEAMS = ['team-a', 'team-b', 'team-c', 'team-d'] as const;

/** The shared root password of seeded nodes (each still gets its own salted hash). */
export const ROOT_PASS = 'bench-Root-pass-1';

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length] as T;
}

/** The create request of the i-th node of account a: image-built, spread over regions, types and images, 2-3 tags. */
export function seedNodeBody(a: number, i: number): CreateNode {
  const role = pick(ROLES, i);
  const tags = [pick(ENVS, i >> 1), role, ...(i % 3 === 0 ? [pick(TEAMS, a + i)] : [])];
  return {
    region: pick(SEED_REGIONS, i),
    type: pick(TYPES, i >> 2),
    image: pick(IMAGES, i >> 3),
    root_pass: ROOT_PASS,
    label: `${role}-${a}-${i}`,
    group: pick(ENVS, i >> 1),
    tags,
  };
}
