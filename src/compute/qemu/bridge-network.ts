import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { formatAddress, parseAddress } from '../../net/cidr.ts';
import type { MachineSpec } from '../driver.ts';
import { interfaceAddresses } from './bridge-addresses.ts';
import {
  bridgeMac,
  HOST_LINK_ADDRESS,
  hostTable,
  hostVethName,
  machineTable,
  NAMESPACE_LINK_ADDRESS,
  regionBridgeName,
  tapName,
  tapPrefix,
  UPLINK,
  vlanBridgeName,
} from './bridge-names.ts';
import { dropHostTableText, hostTableText } from './host-nftables.ts';
import {
  dropMachineTablesText,
  firewallText,
  MAX_MACHINE_ID,
  type MachineAddressSets,
  type MachinePort,
  machineTablesText,
  TRAFFIC_COUNTERS,
  type TrafficCounter,
} from './machine-nftables.ts';
import type { MachineNetwork, MachineTraffic, NetworkBackend } from './network-backend.ts';
import { parseNodeRuleset } from './node-ruleset.ts';
import { run } from './run.ts';

/** Namespace settings: routing, and bridged IP seen by the `inet` hooks (the firewall needs it, machine-nftables.ts). */
const NAMESPACE_SYSCTLS = [
  'net.ipv4.ip_forward=1',
  'net.ipv6.conf.all.forwarding=1',
  'net.bridge.bridge-nf-call-iptables=1',
  'net.bridge.bridge-nf-call-ip6tables=1',
];

interface Link {
  ifname: string;
  master?: string;
  ifalias?: string;
}

interface Route {
  dst: string;
  dev?: string;
}

/** An address as `ip` and `nft` may write it, in the one canonical text compared here. */
function canonical(text: string): string {
  const parsed = parseAddress(text.split('/')[0] ?? '');
  return parsed ? formatAddress(parsed.version, parsed.value) : text;
}

/**
 * Bridge networking (root): a network namespace (`cumulo` by default) holding one Linux bridge per
 * region, with the gateways of its machines' addresses on it, and a bridge per VLAN, with none;
 * each machine interface a tap inside it, on its bridge; a veth pair to the host, which routes each
 * machine's public addresses through it, so the host reaches the guests at their own addresses.
 * QEMU runs inside the namespace (`launchPrefix`) to open its taps. A machine's firewall filters its
 * public interface (machine-nftables.ts); VLANs are not filtered.
 */
export interface BridgeNetworkOptions {
  netns: string;
  log: Logger;
  /** Who the namespace belongs to (the installation's data dir): another owner's namespace is refused, not shared. */
  owner?: string;
  /** Host ports nodes may reach (`53/udp`); none unless listed. */
  hostPorts?: readonly string[];
  /** Masquerade nodes' IPv4 traffic to the world behind the host's addresses. */
  nat?: boolean;
}

export class BridgeNetwork implements NetworkBackend {
  readonly mode = 'bridge';
  readonly netns: string;
  private readonly log: Logger;
  private readonly hostVeth: string;
  private readonly owner: string;
  private readonly hostPorts: readonly string[];
  private readonly nat: boolean;
  /** One change at a time: two attaches would race to make the same namespace and bridges. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: BridgeNetworkOptions) {
    this.netns = options.netns;
    this.log = options.log;
    this.hostVeth = hostVethName(this.netns);
    this.owner = ownerMark(options.owner ?? `namespace ${this.netns}`);
    this.hostPorts = options.hostPorts ?? [];
    this.nat = options.nat ?? false;
    checkName('network namespace name', this.netns);
  }

  attach(spec: MachineSpec): Promise<MachineNetwork> {
    return this.serially(() => this.attachNow(spec));
  }

  detach(key: string): Promise<void> {
    return this.serially(() => this.detachNow(key));
  }

  applyFirewall(key: string, ruleset: string | null): Promise<void> {
    return this.serially(() => this.applyFirewallNow(key, ruleset));
  }

  /** Deletes the namespace and so everything in it, the veth pair and the host's routes through it (machines must be stopped first). */
  removeNamespace(): Promise<void> {
    return this.serially(async () => {
      requireRoot();
      if (await this.namespaceExists()) await run('ip', ['netns', 'delete', this.netns]);
      await this.nftHost(dropHostTableText(hostTable(this.netns)));
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async attachNow(spec: MachineSpec): Promise<MachineNetwork> {
    requireRoot();
    checkKey(spec.key);
    checkName('region', spec.region);
    for (const iface of spec.interfaces) {
      if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(iface.mac))
        throw new Error(`machine ${spec.key}: not a MAC address: ${iface.mac}`);
      if (iface.purpose === 'vlan') checkName('vlan', iface.vlan ?? '', 100);
    }
    await this.ensureNamespace();
    const links = await this.links();
    const present = new Set(links.map((l) => l.ifname));
    const commands: string[] = [];
    const qemuArgs: string[] = [];
    const ports: MachinePort[] = [];
    const own: { ipv4: string[]; ipv6: string[] } = { ipv4: [], ipv6: [] };
    const routed: { ipv4: string[]; ipv6: string[]; bridge: string }[] = [];

    const ensureBridge = (name: string, alias: string, addresses: readonly string[] | 'none') => {
      if (!present.has(name)) {
        commands.push(`link add name ${name} address ${bridgeMac(name)} type bridge`);
        // A VLAN's bridge carries no address at all, not even a link-local one: the namespace takes no part in it.
        if (addresses === 'none') commands.push(`link set dev ${name} addrgenmode none`);
        present.add(name);
      }
      commands.push(`link set dev ${name} alias ${alias} up`);
      for (const address of addresses === 'none' ? [] : addresses)
        commands.push(`address replace ${address} dev ${name}${address.includes(':') ? ' nodad' : ''}`);
    };

    spec.interfaces.forEach((iface, index) => {
      const tap = tapName(spec.key, index);
      let bridge: string;
      if (iface.purpose === 'public') {
        const addresses = interfaceAddresses(iface);
        bridge = regionBridgeName(spec.region);
        ensureBridge(bridge, `region/${spec.region}`, addresses.gateways);
        own.ipv4.push(...addresses.own.ipv4);
        own.ipv6.push(...addresses.own.ipv6);
        routed.push({ ...addresses.routed, bridge });
      } else {
        const vlan = iface.vlan ?? '';
        bridge = vlanBridgeName(spec.region, vlan);
        ensureBridge(bridge, `vlan/${spec.region}/${vlan}`, 'none');
      }
      ports.push({ tap, mac: iface.mac.toLowerCase(), purpose: iface.purpose });
      if (!present.has(tap)) commands.push(`tuntap add dev ${tap} mode tap`, `link set dev ${tap} addrgenmode none`);
      commands.push(`link set dev ${tap} master ${bridge} alias ${spec.key}/eth${index} up`);
      const id = `net${index}`;
      qemuArgs.push('-netdev', `tap,id=${id},ifname=${tap},script=no,downscript=no`);
      qemuArgs.push('-device', `virtio-net-pci,netdev=${id},mac=${iface.mac}`);
    });
    const prefix = tapPrefix(spec.key);
    for (const link of links)
      if (link.ifname.startsWith(prefix) && Number(link.ifname.slice(prefix.length)) >= spec.interfaces.length)
        commands.push(`link delete dev ${link.ifname}`);

    // Routes of an earlier attach to addresses the machine no longer has go first.
    const before = await this.machineAddresses(spec.key);
    if (before !== null) {
      const keep = new Set(routed.flatMap((r) => [...r.ipv4, ...r.ipv6]));
      await this.deleteRoutes({ ipv4: before.ipv4.filter((a) => !keep.has(a)), ipv6: before.ipv6.filter((a) => !keep.has(a)) });
    }
    for (const { ipv6, bridge } of routed)
      for (const address of ipv6) commands.push(`route replace ${address}/128 dev ${bridge}`);
    const table = machineTable(spec.key);
    const id = await this.machineId(table);
    await this.assertRoutesFree(routed.flatMap((r) => [...r.ipv4, ...r.ipv6]));
    await this.ipBatch(['-n', this.netns], commands, `attach ${spec.key}`);
    const hostRoutes = routed.flatMap((r) => [
      ...r.ipv4.map((a) => `route replace ${a}/32 via inet6 ${NAMESPACE_LINK_ADDRESS} dev ${this.hostVeth}`),
      ...r.ipv6.map((a) => `route replace ${a}/128 via ${NAMESPACE_LINK_ADDRESS} dev ${this.hostVeth}`),
    ]);
    await this.ipBatch([], hostRoutes, `host routes of ${spec.key}`);
    const routed4 = new Set(routed.flatMap((r) => r.ipv4));
    const local4 = own.ipv4.filter((a) => !routed4.has(a));
    await this.nft(machineTablesText(table, { id, ports, addresses: own, localIpv4: local4 }), `tables of ${spec.key}`);
    this.log.info(
      { key: spec.key, netns: this.netns, taps: spec.interfaces.map((_, i) => tapName(spec.key, i)) },
      'machine network attached',
    );
    return { qemuArgs, launchPrefix: ['ip', 'netns', 'exec', this.netns], ports: [] };
  }

  private async detachNow(key: string): Promise<void> {
    requireRoot();
    checkKey(key);
    if (!(await this.namespaceExists())) return;
    const addresses = await this.machineAddresses(key);
    if (addresses !== null) await this.deleteRoutes(addresses);
    const prefix = tapPrefix(key);
    const taps = (await this.links()).filter((l) => l.ifname.startsWith(prefix)).map((l) => `link delete dev ${l.ifname}`);
    await this.ipBatch(['-n', this.netns], taps, `detach ${key}`);
    await this.nft(dropMachineTablesText(machineTable(key)), `tables of ${key}`);
    this.log.info({ key, netns: this.netns }, 'machine network detached');
  }

  private async applyFirewallNow(key: string, ruleset: string | null): Promise<void> {
    requireRoot();
    checkKey(key);
    const table = machineTable(key);
    const attached =
      (await this.namespaceExists()) &&
      (await run('ip', ['netns', 'exec', this.netns, 'nft', 'list', 'tables', 'inet']))
        .split('\n')
        .includes(`table inet ${table}`);
    if (!attached) throw new Error(`machine ${key} has no network attached in namespace ${this.netns}: no firewall to load`);
    await this.nft(firewallText(table, ruleset === null ? null : parseNodeRuleset(ruleset)), `firewall of ${key}`);
    this.log.info({ key, netns: this.netns, firewall: ruleset !== null }, 'machine firewall loaded');
  }

  /** Read without waiting for changes under way: counters are read often, and a table being made reads as none. */
  async traffic(key: string): Promise<MachineTraffic | null> {
    checkKey(key);
    let listed: string;
    try {
      const list = ['nft', '-j', 'list', 'counters', 'table', 'bridge', machineTable(key)];
      listed = await run('ip', ['netns', 'exec', this.netns, ...list]);
    } catch {
      return null;
    }
    const bytes = new Map<string, number>();
    for (const item of (JSON.parse(listed) as { nftables: { counter?: { name: string; bytes: number } }[] }).nftables)
      if (item.counter) bytes.set(item.counter.name, item.counter.bytes);
    if (!TRAFFIC_COUNTERS.every((name) => bytes.has(name))) return null;
    const of = (name: TrafficCounter) => bytes.get(name) ?? 0;
    return {
      ipv4: { inBytes: of('in4'), outBytes: of('out4'), localInBytes: of('in4_local'), localOutBytes: of('out4_local') },
      ipv6: { inBytes: of('in6'), outBytes: of('out6'), localInBytes: of('in6_local'), localOutBytes: of('out6_local') },
    };
  }

  /** The machine's number (machine-nftables.ts): the one its tables hold, else the lowest no other machine's tables hold. */
  private async machineId(table: string): Promise<number> {
    const listed = await run('ip', ['netns', 'exec', this.netns, 'nft', '-j', 'list', 'ruleset', 'bridge']);
    const taken = new Set<number>();
    for (const item of (JSON.parse(listed) as { nftables: { set?: { name: string; table: string; elem?: unknown[] } }[] })
      .nftables) {
      if (item.set?.name !== 'id' || !item.set.table.startsWith('cumulo_')) continue;
      const id = Number(item.set.elem?.[0]);
      if (item.set.table === table && Number.isInteger(id) && id > 0) return id;
      taken.add(id);
    }
    for (let id = 1; id <= MAX_MACHINE_ID; id += 1) if (!taken.has(id)) return id;
    throw new Error(`bridge network: namespace ${this.netns} holds ${MAX_MACHINE_ID} machines, no more fit`);
  }

  /**
   * The host routes to a machine's addresses are this installation's to make: an address the host
   * routes elsewhere (another installation's namespace, or any other link) is refused, not taken over.
   */
  private async assertRoutesFree(addresses: readonly string[]): Promise<void> {
    if (addresses.length === 0) return;
    const wanted = new Set(addresses);
    const routes = [...(await ipJson<Route[]>(['-4', 'route', 'show'])), ...(await ipJson<Route[]>(['-6', 'route', 'show']))];
    for (const route of routes) {
      const [address, prefix] = route.dst.split('/');
      const exact = prefix === undefined || prefix === (address?.includes(':') ? '128' : '32');
      if (!exact || !wanted.has(canonical(address ?? '')) || route.dev === this.hostVeth) continue;
      throw new Error(
        `bridge network: the host already routes ${address} through ${route.dev ?? 'another route'} (another installation's namespace, or a link of the host's); give each installation its own address ranges (the catalog's ipv4_pool and ipv6_prefix)`,
      );
    }
  }

  private async namespaceExists(): Promise<boolean> {
    const listed = await run('ip', ['netns', 'list']);
    return listed.split('\n').some((line) => line.split(' ')[0] === this.netns);
  }

  private async ensureNamespace(): Promise<void> {
    if (!(await this.namespaceExists())) await run('ip', ['netns', 'add', this.netns]);
    try {
      await run('ip', ['netns', 'exec', this.netns, 'sysctl', '-q', '-w', ...NAMESPACE_SYSCTLS]);
    } catch (error) {
      throw new Error(
        `cannot set up namespace ${this.netns} (net.bridge.* is missing until br_netfilter is loaded: modprobe br_netfilter): ${(error as Error).message}`,
      );
    }
    const hostLinks = await ipJson<Link[]>(['link', 'show']);
    if (!hostLinks.some((l) => l.ifname === this.hostVeth))
      await run('ip', ['link', 'add', this.hostVeth, 'type', 'veth', 'peer', 'name', UPLINK, 'netns', this.netns]);
    await this.claimNamespace();
    await this.nftHost(hostTableText(hostTable(this.netns), { veth: this.hostVeth, ports: this.hostPorts, nat: this.nat }));
    if (this.nat) await run('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
    await this.ipBatch(
      [],
      [
        `link set dev ${this.hostVeth} alias netns/${this.netns} up`,
        `address replace ${HOST_LINK_ADDRESS}/64 dev ${this.hostVeth} nodad`,
      ],
      `host end of ${this.netns}`,
    );
    await this.ipBatch(
      ['-n', this.netns],
      [
        'link set dev lo up',
        `link set dev ${UPLINK} up`,
        `address replace ${NAMESPACE_LINK_ADDRESS}/64 dev ${UPLINK} nodad`,
        `route replace 0.0.0.0/0 via inet6 ${HOST_LINK_ADDRESS} dev ${UPLINK}`,
        `route replace ::/0 via ${HOST_LINK_ADDRESS} dev ${UPLINK}`,
      ],
      `namespace ${this.netns}`,
    );
  }

  /** The uplink's alias names the namespace's owner: made by another installation, the namespace is not this one's. */
  private async claimNamespace(): Promise<void> {
    const [uplink] = await ipJson<Link[]>(['-n', this.netns, 'link', 'show', 'dev', UPLINK]);
    const held = uplink?.ifalias;
    if (held !== undefined && held !== '' && held !== this.owner)
      throw new Error(
        `bridge network: namespace ${this.netns} belongs to another installation (${held}); give this one its own (CUMULO_NODE_NETNS)`,
      );
    if (held !== this.owner) await run('ip', ['-n', this.netns, 'link', 'set', 'dev', UPLINK, 'alias', this.owner]);
  }

  private links(): Promise<Link[]> {
    return ipJson<Link[]>(['-n', this.netns, 'link', 'show']);
  }

  /** The addresses a machine's bridge table holds (its public interface's), or null when it has none. */
  private async machineAddresses(key: string): Promise<MachineAddressSets | null> {
    const table = machineTable(key);
    let listed: string;
    try {
      listed = await run('ip', ['netns', 'exec', this.netns, 'nft', '-j', 'list', 'table', 'bridge', table]);
    } catch {
      return null;
    }
    const sets: Record<string, string[]> = { ipv4: [], ipv6: [] };
    for (const item of (JSON.parse(listed) as { nftables: { set?: { name: string; elem?: unknown[] } }[] }).nftables) {
      if (item.set && item.set.name in sets) sets[item.set.name] = (item.set.elem ?? []).map((e) => canonical(String(e)));
    }
    return { ipv4: sets.ipv4 ?? [], ipv6: sets.ipv6 ?? [] };
  }

  /** Removes the host's routes to these addresses through the veth, and the namespace's IPv6 routes to them. */
  private async deleteRoutes(addresses: MachineAddressSets): Promise<void> {
    const wanted = new Set([...addresses.ipv4, ...addresses.ipv6]);
    if (wanted.size === 0) return;
    const routesTo = async (prefix: string[], family: '-4' | '-6', extra: string[]) =>
      (await ipJson<Route[]>([...prefix, family, 'route', 'show', ...extra])).filter((r) => wanted.has(canonical(r.dst)));
    const hostLinks = await ipJson<Link[]>(['link', 'show']);
    if (hostLinks.some((l) => l.ifname === this.hostVeth)) {
      const host = [...(await routesTo([], '-4', ['dev', this.hostVeth])), ...(await routesTo([], '-6', ['dev', this.hostVeth]))];
      await this.ipBatch(
        [],
        host.map((r) => `route delete ${r.dst} dev ${this.hostVeth}`),
        'host routes',
      );
    }
    const inside = (await routesTo(['-n', this.netns], '-6', [])).filter((r) => r.dev !== undefined && r.dev !== UPLINK);
    await this.ipBatch(
      ['-n', this.netns],
      inside.map((r) => `route delete ${r.dst} dev ${r.dev}`),
      'namespace routes',
    );
  }

  private async ipBatch(prefix: string[], commands: readonly string[], what: string): Promise<void> {
    if (commands.length === 0) return;
    try {
      await run('ip', [...prefix, '-batch', '-'], { input: `${commands.join('\n')}\n` });
    } catch (error) {
      throw new Error(`bridge network (${what}): ${(error as Error).message}\ncommands:\n${commands.join('\n')}`);
    }
  }

  /** Loads nftables text in the host's own ruleset, as one transaction. */
  private async nftHost(text: string): Promise<void> {
    try {
      await run('nft', ['-f', '-'], { input: text });
    } catch (error) {
      throw new Error(`bridge network (host table of ${this.netns}): ${(error as Error).message}`);
    }
  }

  /** Loads nftables text in the namespace as one transaction: on an error nothing of it is applied. */
  private async nft(text: string, what: string): Promise<void> {
    try {
      await run('ip', ['netns', 'exec', this.netns, 'nft', '-f', '-'], { input: text });
    } catch (error) {
      throw new Error(`bridge network (${what}): ${(error as Error).message}`);
    }
  }
}

function requireRoot(): void {
  const uid = process.getuid?.();
  if (uid !== 0)
    throw new Error(
      `bridge networking needs root (it makes a network namespace, bridges, taps and host routes); this process runs as uid ${uid}`,
    );
}

/** Keys, regions and VLANs become link aliases and batch arguments: nothing that `ip -batch` would split or quote. */
function checkName(what: string, value: string, maxLength = 64): void {
  if (value.length > maxLength || !/^[A-Za-z0-9._-]+$/.test(value))
    throw new Error(`bridge networking: not a usable ${what}: ${JSON.stringify(value)}`);
}

/** An owner as a link alias holds it (at most 255 bytes): a long one by its hash. */
function ownerMark(owner: string): string {
  const text = `cumulo ${owner}`;
  return Buffer.byteLength(text) <= 200 && !/[\n\r]/.test(text)
    ? text
    : `cumulo sha256:${createHash('sha256').update(owner).digest('hex')}`;
}

function checkKey(key: string): void {
  checkName('machine key', key);
}

async function ipJson<T>(args: string[]): Promise<T> {
  const out = await run('ip', ['-j', ...args]);
  return (out.trim() === '' ? [] : JSON.parse(out)) as T;
}
