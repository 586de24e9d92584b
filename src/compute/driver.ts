import type { Duplex } from 'node:stream';

/**
 * The compute layer: machines, disks and images by opaque keys (`node-12`, `disk-34`). It knows no
 * node, account or event; the nodes group translates its rows into these specs (docs/compute.md).
 */

/** What a disk holds when made blank. `raw` and `swap` are left unformatted here (swap is formatted by the guest). */
export type DiskFilesystem = 'raw' | 'swap' | 'ext3' | 'ext4' | 'initrd';

/** How far a long step is, from 0 to 1 (a disk copy's share of the blocks written). */
export type Progress = (fraction: number) => void;

export interface DiskSpec {
  key: string;
  sizeMb: number;
  filesystem: DiskFilesystem;
}

/** An image as local files. */
export interface ImageFiles {
  /** A root filesystem (built images) or a whole-disk image (uploads). */
  disk: string;
  /** `gzip` for uploaded images, which are stored as sent. */
  format: 'raw' | 'gzip';
  /** gzip: the most its data may unpack to (a deploy stops there, as it does at the disk's size). */
  maxUnpackedBytes?: number;
  /** Built images boot with their own kernel and initrd; an image without them boots from its disk's bootloader. */
  kernel?: string;
  initrd?: string;
}

/** Where a captured disk's files go (paths the caller chose). */
export interface CapturedDisk {
  disk: string;
  kernel: string;
  initrd: string;
}

export interface NetworkSettings {
  /** `eth0`, `eth1`, ... in the order of the machine's interfaces. */
  interface: string;
  /** Addresses with their prefix, e.g. `192.0.2.10/24`. */
  ipv4: readonly string[];
  gateway4?: string;
  /** An SLAAC address with its prefix, e.g. `2600:3c00::f03c:91ff:fe12:3456/64`. */
  ipv6?: string;
  gateway6?: string;
}

/** Written into the disk's filesystem before first boot, without mounting it. */
export interface DeploySettings {
  hostname: string;
  /** A crypt(3) hash for root; null leaves the image's (locked) password. */
  rootPasswordHash: string | null;
  /** OpenSSH public keys for root. */
  authorizedKeys: readonly string[];
  network: readonly NetworkSettings[];
  /** A script run once at first boot, with these environment variables. */
  firstBoot?: { script: string; env: Readonly<Record<string, string>> };
}

export interface MachineInterface {
  mac: string;
  /** `public` is the region's network; `vlan` a private segment named by `vlan` (a key unique across accounts). */
  purpose: 'public' | 'vlan';
  vlan?: string;
  /** What the guest is given on this interface (the same as its deploy settings), so the host side can route to it. */
  addresses: NetworkSettings | null;
}

export interface MachineSpec {
  key: string;
  /** The region's network the public interface joins (bridge mode: one bridge per region). */
  region: string;
  memoryMb: number;
  vcpus: number;
  /** Disk keys by device, in order (`sda`, `sdb`, ...); null leaves the device empty. */
  devices: readonly (string | null)[];
  /** The root device's index in `devices` (`/dev/sda` is 0). */
  rootDevice: number;
  /**
   * `image`: the kernel and initrd deployed with the root disk's image (direct boot), or the first
   * disk's own bootloader when the root disk has none (an uploaded whole-disk image); `disk`: the
   * first disk's own bootloader always (`direct-disk`).
   */
  boot: 'image' | 'disk';
  interfaces: readonly MachineInterface[];
}

export type MachineState = 'running' | 'stopped';

/** What a machine did without being asked. */
export interface ComputeEvent {
  key: string;
  kind: 'powered_off' | 'crashed';
}

/** A port of a machine reachable from the host (user networking). */
export interface ForwardedPort {
  guest: number;
  host: number;
  address: string;
}

/** The serial console of a running machine. */
export interface MachineConsole {
  /** What the console showed last (bounded), to replay on attach. */
  screen(): Buffer;
  /** A stream of what the console prints from now on; what is written to it is typed into the console. */
  attach(): Duplex;
}

/**
 * Bytes of one address family through a machine's public interfaces, as the machine sees them (in:
 * received). `local` is the traffic of its addresses that are not routed beyond the region's network
 * (IPv4 addresses outside its gateway's subnet, IPv6 link-local and multicast); the rest is routed.
 */
export interface FamilyTraffic {
  inBytes: number;
  outBytes: number;
  localInBytes: number;
  localOutBytes: number;
}

/** Counters since the machine started: each starts again from 0 when it does. */
export interface MachineCounters {
  /** Which run of the machine they count: another value once it has started again (and they count from 0). */
  run: string;
  /** CPU time the machine's process used, all its vCPUs together. */
  cpuSeconds: number;
  diskReadBytes: number;
  diskWriteBytes: number;
  /** Zero where the network has no host side to count on (user networking). */
  ipv4: FamilyTraffic;
  ipv6: FamilyTraffic;
}

/** A disk's files as copied at one point in time (`snapshotDisks`), or as given back (`restoreDisk`). */
export interface DiskCopy {
  /** The disk copied. */
  key: string;
  disk: string;
  /** The kernel and initrd deployed beside the disk, when it has them. */
  kernel?: string;
  initrd?: string;
}

export interface ComputeDriver {
  readonly name: string;
  /** Adopts the machines left running by an earlier process; events go to `onEvent` from then on. */
  open(onEvent: (event: ComputeEvent) => void): Promise<void>;
  /** Lets go of the machines without stopping them (they outlive the process). */
  close(): Promise<void>;

  /**
   * The storage (MB) the host's disks may take altogether: what their sizes may add up to before
   * the operator's over-commit ratio (a sparse disk may grow to its size).
   */
  diskCapacityMb(): Promise<number>;
  /** A blank disk; done again with the same key, it leaves the disk as it is. */
  prepareDisk(spec: DiskSpec): Promise<void>;
  /** The image onto the disk, grown to its size, then the settings. Done again, it starts over. */
  deployImage(disk: DiskSpec, image: ImageFiles, settings: DeploySettings, onProgress?: Progress): Promise<void>;
  /** Removes the disk's files; a missing disk is not an error. */
  deleteDisk(key: string): Promise<void>;
  /**
   * Grows or shrinks the disk to `spec.sizeMb` with its filesystem (not while a machine uses it). A
   * shrink below what its filesystem holds is an error, the disk left as it was. Done again, it leaves it as it is.
   */
  resizeDisk(spec: DiskSpec): Promise<void>;
  /** The smallest size (MB) the disk can shrink to without losing what it holds; null when it has no filesystem to keep. */
  diskMinimumMb(spec: DiskSpec): Promise<number | null>;
  /** Sets root's password to a crypt(3) hash in the /etc/shadow of the disk's filesystem (not while a machine uses it). */
  setRootPassword(key: string, hash: string): Promise<void>;
  /** A file of the disk's (ext) filesystem as text; null when the disk has no such filesystem or file. Not while a machine uses it. */
  readDiskFile(key: string, path: string): Promise<string | null>;

  /**
   * Copies the disks into `destination` (a folder each) at one point in time: the machine, when it
   * runs, is paused while they are copied. Returns the copies and how long the machine was paused.
   */
  snapshotDisks(
    machineKey: string,
    diskKeys: readonly string[],
    destination: string,
    onProgress?: Progress,
  ): Promise<{ copies: DiskCopy[]; pausedMs: number }>;
  /**
   * Replaces the disk's files with a copy, grown to the disk's size; its machine must be stopped.
   * With `network`, the interfaces' addresses in its (ext) filesystem are rewritten, as a deploy writes them.
   */
  restoreDisk(
    disk: DiskSpec,
    copy: Omit<DiskCopy, 'key'>,
    network?: readonly NetworkSettings[],
    onProgress?: Progress,
  ): Promise<void>;
  /**
   * A copy of disk `from` (with the kernel and initrd it boots with) as disk `to`, grown to its size;
   * a machine running from `from` is paused while it is read. Done again, it starts over.
   */
  copyDisk(from: string, to: DiskSpec, onProgress?: Progress): Promise<void>;
  /**
   * Disk `key` as an image's files: its filesystem shrunk to what it holds and gzipped into `to.disk`,
   * its kernel and initrd copied to `to.kernel` and `to.initrd` when it has them (`bootFiles`); `sizeMb`
   * is the smallest disk it deploys onto (what the data unpacks to, rounded up to a MB); a
   * machine running from it is paused while it is read.
   */
  captureDisk(key: string, to: CapturedDisk, onProgress?: Progress): Promise<{ bootFiles: boolean; sizeMb: number }>;
  /**
   * The network helper: the interfaces' addresses written into the disk's filesystem as a deploy
   * writes them; a disk that is not a bare ext filesystem is left as it is. The disk must not be in use.
   */
  writeNetwork(key: string, network: readonly NetworkSettings[]): Promise<void>;

  /** Memory (MB) left for machines, after those running now. */
  memoryFreeMb(): number;
  /** Starts the machine and resolves once its guest is up; a machine already running is waited for. */
  start(spec: MachineSpec, options: { timeoutMs: number }): Promise<void>;
  /** ACPI power-off, forced off after `graceMs`; resolves once it is stopped (at once when it is). */
  stop(key: string, options: { graceMs: number }): Promise<void>;
  /** Stops the machine at once and removes what it left (sockets, logs, ports). */
  destroy(key: string): Promise<void>;
  state(key: string): Promise<MachineState>;
  /** The serial console; null when the machine is not running. */
  console(key: string): MachineConsole | null;
  ports(key: string): readonly ForwardedPort[];
  /** Null when the machine is not running. */
  counters(key: string): Promise<MachineCounters | null>;
  /**
   * The node's rendered nftables ruleset for the machine's interfaces (null: none), kept whether the
   * machine runs or not: loaded now when it runs, and at every start before the guest runs.
   */
  applyFirewall(key: string, ruleset: string | null): Promise<void>;
}
