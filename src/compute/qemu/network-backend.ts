import type { FamilyTraffic, ForwardedPort, MachineSpec } from '../driver.ts';

/** What a machine's interfaces need from the host, as QEMU is started with it. */
export interface MachineNetwork {
  /** QEMU arguments for the machine's interfaces (`-netdev ... -device ...`). */
  qemuArgs: string[];
  /** A command QEMU runs under (e.g. `ip netns exec NAME`); empty for none. */
  launchPrefix: string[];
  /** Guest ports reachable from the host (user networking); none when the guest's own addresses are reachable. */
  ports: ForwardedPort[];
}

/**
 * How machines are networked (CUMULO_NODE_NETWORK): `user` (QEMU user networking, no privileges)
 * or `bridge` (root: taps on a bridge per region inside a network namespace). The qemu driver keeps
 * what `attach` gave in the machine's directory, so an adopted machine needs no second attach.
 */
export interface NetworkBackend {
  readonly mode: 'user' | 'bridge';
  /**
   * Makes what the machine's interfaces need (ports, taps, routes); for a key attached already, makes
   * it again. `earlier`: the ports it had before, which it gets again where they are free.
   */
  attach(spec: MachineSpec, earlier?: readonly ForwardedPort[]): Promise<MachineNetwork>;
  /** Removes what `attach` made for the machine; nothing to remove is not an error. */
  detach(key: string): Promise<void>;
  /** Loads a node's rendered nftables ruleset for the machine's interfaces; null removes it. Bridge only. */
  applyFirewall(key: string, ruleset: string | null): Promise<void>;
  /** The machine's traffic by family since its network was attached; null where it cannot be counted (user networking). */
  traffic(key: string): Promise<MachineTraffic | null>;
}

export interface MachineTraffic {
  ipv4: FamilyTraffic;
  ipv6: FamilyTraffic;
}
