import net from 'node:net';
import { formatAddress, parseAddress, parseAddressWithPrefix } from '../../net/cidr.ts';
import type { ForwardedPort, MachineInterface, MachineSpec } from '../driver.ts';
import type { MachineNetwork, NetworkBackend } from './network-backend.ts';

const FORWARD_ADDRESS = '127.0.0.1';
/** QEMU's own user network, for an interface given no IPv4 address. */
const DEFAULT_NET = { net: '10.0.2.0/24', guest: '10.0.2.15' };

/** A TCP port on 127.0.0.1 that nothing listens on now. */
function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, FORWARD_ADDRESS, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, FORWARD_ADDRESS, () => server.close(() => resolve(true)));
  });
}

function checkedMac(mac: string): string {
  if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac)) throw new Error(`not a MAC address: ${JSON.stringify(mac)}`);
  return mac;
}

/**
 * The user network's options that put its gateway and the guest's first IPv4 address on one segment,
 * so the address the guest is configured with (deploy settings) is the one the forwards reach. The
 * network's own DNS address is moved off the guest's and the gateway's.
 */
export function slirpNetwork(iface: MachineInterface): { options: string; guest: string } {
  const first = iface.addresses?.ipv4[0];
  const parsed = first === undefined ? null : parseAddressWithPrefix(first);
  if (parsed === null || parsed.version !== 4 || parsed.prefix > 29)
    return { options: `net=${DEFAULT_NET.net}`, guest: DEFAULT_NET.guest };
  const { network } = parsed;
  const inside = (value: bigint) => value > network.first && value < network.first + network.size - 1n;
  const gateway = iface.addresses?.gateway4 === undefined ? null : parseAddress(iface.addresses.gateway4);
  const taken = new Set([parsed.value]);
  const pick = () => {
    let candidate = network.first + 2n;
    while (taken.has(candidate)) candidate += 1n;
    taken.add(candidate);
    return candidate;
  };
  const host = gateway?.version === 4 && inside(gateway.value) && gateway.value !== parsed.value ? gateway.value : pick();
  taken.add(host);
  const dns = pick();
  const text = (value: bigint) => formatAddress(4, value);
  return {
    options: `net=${text(network.first)}/${network.prefix},host=${text(host)},dns=${text(dns)},dhcpstart=${text(pick())}`,
    guest: text(parsed.value),
  };
}

/**
 * QEMU user networking (CUMULO_NODE_NETWORK=user, no privileges): the first interface is on a user
 * network of its own, isolated (`restrict=on`), with the guest's port 22 and the operator's ports
 * (CUMULO_NODE_PORTS) forwarded from free 127.0.0.1 ports. Further interfaces (VLANs) are there for
 * the guest, with its MAC, but connected to nothing: machines on user networking cannot reach each other.
 */
export class UserNetwork implements NetworkBackend {
  readonly mode = 'user';
  #guestPorts: readonly number[];
  /** Ports handed out, by machine: two attaches at once never get the same port. */
  #taken = new Map<string, number[]>();

  constructor(options: { ports: readonly number[] }) {
    this.#guestPorts = [...new Set([22, ...options.ports])];
  }

  async #freshPort(wanted: number | undefined): Promise<number> {
    const taken = new Set([...this.#taken.values()].flat());
    if (wanted !== undefined && !taken.has(wanted) && (await portIsFree(wanted))) return wanted;
    for (;;) {
      const port = await freeLocalPort();
      if (!taken.has(port)) return port;
    }
  }

  async attach(spec: MachineSpec, earlier: readonly ForwardedPort[] = []): Promise<MachineNetwork> {
    this.#taken.delete(spec.key);
    const qemuArgs: string[] = [];
    const ports: ForwardedPort[] = [];
    const held: number[] = [];
    this.#taken.set(spec.key, held);
    for (const [index, iface] of spec.interfaces.entries()) {
      const mac = checkedMac(iface.mac);
      if (index > 0) {
        qemuArgs.push('-device', `virtio-net-pci,mac=${mac}`);
        continue;
      }
      const slirp = slirpNetwork(iface);
      const forwards: string[] = [];
      for (const guest of this.#guestPorts) {
        const host = await this.#freshPort(earlier.find((p) => p.guest === guest)?.host);
        held.push(host);
        ports.push({ guest, host, address: FORWARD_ADDRESS });
        forwards.push(`,hostfwd=tcp:${FORWARD_ADDRESS}:${host}-${slirp.guest}:${guest}`);
      }
      // restrict=on: the guest reaches nothing outside; only the forwards reach it.
      qemuArgs.push('-netdev', `user,id=net0,restrict=on,ipv6=off,${slirp.options}${forwards.join('')}`);
      qemuArgs.push('-device', `virtio-net-pci,netdev=net0,mac=${mac}`);
    }
    return { qemuArgs, launchPrefix: [], ports };
  }

  async detach(key: string): Promise<void> {
    this.#taken.delete(key);
  }

  // Firewalls only filter in bridge mode: a user network takes no packet filter, and nothing but the forwards reaches the guest.
  async applyFirewall(_key: string, _ruleset: string | null): Promise<void> {}

  /** QEMU's user network has no host side to count on. */
  async traffic(_key: string): Promise<null> {
    return null;
  }
}
