import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { RECIPES } from '../../compute/images/recipes.ts';
import { overlaps, parseCidr } from '../../net/cidr.ts';
import { PACKAGE_ROOT } from '../../package-root.ts';

export const NODE_TYPE_CLASSES = ['nanode', 'standard', 'dedicated', 'gpu', 'highmem'] as const;
export const KERNEL_ARCHITECTURES = ['x86_64', 'i386'] as const;

const Price = Type.Object({ hourly: Type.Number({ minimum: 0 }), monthly: Type.Number({ minimum: 0 }) });
/** Stored as the API renders it: UTC, second precision, no zone designator. */
const Timestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' });

const RegionData = Type.Object({
  id: Type.String({ pattern: '^[a-z]{2}-[a-z]+(-[0-9]+)?$' }),
  label: Type.String(),
  country: Type.String({ minLength: 2, maxLength: 2 }),
  capabilities: Type.Array(Type.String()),
  resolvers: Type.Object({ ipv4: Type.String(), ipv6: Type.String() }),
  status: Type.Enum(['ok', 'outage']),
  /** `core` (a full data center, the default) or `distributed` (an edge site with fewer services). */
  site_type: Type.Optional(Type.Enum(['core', 'distributed'])),
  /** IPAM: the region's public IPv4 pool and IPv6 prefix (CIDR); nodes draw addresses from them. */
  ipv4_pool: Type.String({ minLength: 1 }),
  ipv6_prefix: Type.String({ minLength: 1 }),
});

const NodeTypeData = Type.Object({
  id: Type.String({ minLength: 1 }),
  label: Type.String(),
  class: Type.Enum(NODE_TYPE_CLASSES),
  disk: Type.Integer({ minimum: 1 }),
  memory: Type.Integer({ minimum: 1 }),
  vcpus: Type.Integer({ minimum: 1 }),
  gpus: Type.Integer({ minimum: 0 }),
  transfer: Type.Integer({ minimum: 0 }),
  network_out: Type.Integer({ minimum: 0 }),
  price: Price,
  addons: Type.Object({ backups: Type.Object({ price: Price }) }),
  successor: Type.Union([Type.String(), Type.Null()]),
});

const KernelData = Type.Object({
  id: Type.String({ pattern: '^node/[a-z0-9._-]+$' }),
  label: Type.String(),
  version: Type.String(),
  kvm: Type.Boolean(),
  xen: Type.Boolean(),
  architecture: Type.Enum(KERNEL_ARCHITECTURES),
  pvops: Type.Boolean(),
  deprecated: Type.Boolean(),
  built: Timestamp,
});

const PublicImageData = Type.Object({
  id: Type.String({ pattern: '^node/[a-z0-9._-]+$' }),
  label: Type.String(),
  vendor: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  size: Type.Integer({ minimum: 1 }),
  deprecated: Type.Boolean(),
  created: Timestamp,
  eol: Type.Union([Timestamp, Type.Null()]),
  /** The recipe (`cumulo images build <recipe>`) that makes the image real nodes run; without one it runs on simulated nodes only. */
  recipe: Type.Optional(Type.String({ minLength: 1 })),
});

export const CatalogData = Type.Object({
  regions: Type.Array(RegionData, { minItems: 1 }),
  types: Type.Array(NodeTypeData, { minItems: 1 }),
  kernels: Type.Array(KernelData, { minItems: 1 }),
  images: Type.Array(PublicImageData, { minItems: 1 }),
});

export type CatalogDataT = Static<typeof CatalogData>;
export type RegionDataT = Static<typeof RegionData>;
export type NodeTypeDataT = Static<typeof NodeTypeData>;
export type KernelDataT = Static<typeof KernelData>;
export type PublicImageDataT = Static<typeof PublicImageData>;

export const DEFAULT_CATALOG_PATH = join(PACKAGE_ROOT, 'catalog', 'default.json');

/** The offer: regions, node types, kernels and public images, read from a replaceable data file. */
export class Catalog {
  readonly data: CatalogDataT;
  readonly source: string;
  readonly #regions: Map<string, RegionDataT>;
  readonly #types: Map<string, NodeTypeDataT>;
  readonly #images: Map<string, PublicImageDataT>;
  readonly #kernels: Map<string, KernelDataT>;
  readonly #hosts: Map<string, string>;

  constructor(data: CatalogDataT, source: string) {
    this.data = data;
    this.source = source;
    this.#regions = new Map();
    this.overrideRegionStatus(new Map());
    this.#types = new Map(data.types.map((t) => [t.id, t]));
    this.#images = new Map(data.images.map((i) => [i.id, i]));
    this.#kernels = new Map(data.kernels.map((k) => [k.id, k]));
    this.#hosts = new Map(data.regions.map((r) => [r.id, createHash('sha1').update(`host:${r.id}`).digest('hex')]));
  }

  /** The id a node's `host_uuid` shows: one host per region, stable across restarts and installations. */
  hostUuid(regionId: string): string {
    return this.#hosts.get(regionId) ?? createHash('sha1').update(`host:${regionId}`).digest('hex');
  }

  /**
   * The operator's region outages (admin API) laid over the file's statuses; `region()` and every
   * check that reads it (node placement) see them.
   */
  overrideRegionStatus(overrides: ReadonlyMap<string, 'ok' | 'outage'>): void {
    this.#regions.clear();
    for (const r of this.data.regions) {
      const status = overrides.get(r.id);
      this.#regions.set(r.id, status && status !== r.status ? { ...r, status } : r);
    }
  }

  region(id: string): RegionDataT | undefined {
    return this.#regions.get(id);
  }
  type(id: string): NodeTypeDataT | undefined {
    return this.#types.get(id);
  }
  image(id: string): PublicImageDataT | undefined {
    return this.#images.get(id);
  }
  kernel(id: string): KernelDataT | undefined {
    return this.#kernels.get(id);
  }
}

export class CatalogError extends Error {}

export function loadCatalog(path = DEFAULT_CATALOG_PATH): Catalog {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CatalogError(`cannot read the catalog ${path}: ${(err as Error).message}`);
  }
  if (!Value.Check(CatalogData, parsed)) {
    const reasons = [...Value.Errors(CatalogData, parsed)].map((e) => {
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
      return `${e.instancePath || '/'} ${e.message}${allowed ? ` (${allowed.join(', ')})` : ''}`;
    });
    throw new CatalogError(`the catalog ${path} is not valid: ${[...new Set(reasons)].slice(0, 5).join('; ')}`);
  }
  const data = parsed as CatalogDataT;
  const problems = catalogProblems(data);
  if (problems.length) {
    throw new CatalogError(`the catalog ${path} is not valid: ${problems.slice(0, 5).join('; ')}`);
  }
  return new Catalog(data, path);
}

/** What the schema cannot say: unique ids, known successors and recipes, well-formed address blocks no two regions share. */
function catalogProblems(data: CatalogDataT): string[] {
  const problems: string[] = [];
  const collections = { regions: data.regions, types: data.types, kernels: data.kernels, images: data.images };
  for (const [name, items] of Object.entries(collections)) {
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item.id)) problems.push(`/${name} lists ${item.id} twice`);
      seen.add(item.id);
    }
  }
  const typeIds = new Set(data.types.map((t) => t.id));
  for (const t of data.types) {
    if (t.successor !== null && !typeIds.has(t.successor)) {
      problems.push(`type ${t.id} names an unknown successor ${t.successor}`);
    }
  }
  for (const i of data.images) {
    if (i.recipe !== undefined && !RECIPES.has(i.recipe)) {
      problems.push(`image ${i.id} names an unknown recipe ${i.recipe} (known: ${[...RECIPES.keys()].join(', ')})`);
    }
  }
  const blocks: { owner: string; block: NonNullable<ReturnType<typeof parseCidr>> }[] = [];
  for (const r of data.regions) {
    for (const [field, text, version] of [
      ['ipv4_pool', r.ipv4_pool, 4],
      ['ipv6_prefix', r.ipv6_prefix, 6],
    ] as const) {
      const block = parseCidr(text);
      if (!block || block.version !== version) {
        problems.push(`region ${r.id} ${field} ${text} is not an IPv${version} network in CIDR form`);
        continue;
      }
      const clash = blocks.find((b) => overlaps(b.block, block));
      if (clash) problems.push(`region ${r.id} ${field} ${text} overlaps ${clash.owner}`);
      blocks.push({ owner: `${field} of ${r.id}`, block });
    }
  }
  return problems;
}
