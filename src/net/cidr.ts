import net from 'node:net';

/** An address block as a half-open range of integers, IPv4 and IPv6 alike. */
export interface Block {
  readonly version: 4 | 6;
  readonly first: bigint;
  readonly prefix: number;
  readonly size: bigint;
}

function ipv4ToBigInt(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(octet), 0n);
}

function ipv6ToBigInt(address: string): bigint {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n);
}

/** Parses `address/prefix`; null unless it is a network address (no host bits set). */
export function parseCidr(text: string): Block | null {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!match?.[1] || !match[2]) return null;
  const version = net.isIP(match[1]);
  if (version !== 4 && version !== 6) return null;
  // Embedded IPv4 tails (::ffff:1.2.3.4) are valid addresses but never a sensible pool.
  if (version === 6 && match[1].includes('.')) return null;
  const bits = version === 4 ? 32 : 128;
  const prefix = Number(match[2]);
  if (prefix > bits) return null;
  const first = version === 4 ? ipv4ToBigInt(match[1]) : ipv6ToBigInt(match[1]);
  const size = 1n << BigInt(bits - prefix);
  if (first % size !== 0n) return null;
  return { version, first, prefix, size };
}

export function overlaps(a: Block, b: Block): boolean {
  return a.version === b.version && a.first < b.first + b.size && b.first < a.first + a.size;
}

/** The block of `prefix` bits starting at `first` (which the caller has aligned). */
export function blockAt(version: 4 | 6, first: bigint, prefix: number): Block {
  return { version, first, prefix, size: 1n << BigInt((version === 4 ? 32 : 128) - prefix) };
}

export function lastAddressOf(block: Block): bigint {
  return block.first + block.size - 1n;
}

/**
 * The lowest block of `prefix` bits inside `within`, aligned on its size, that overlaps none of
 * `taken`; null when there is no room (or the block would be larger than `within`).
 */
export function firstFreeBlock(within: Block, taken: readonly Block[], prefix: number): Block | null {
  if (prefix < within.prefix || prefix > (within.version === 4 ? 32 : 128)) return null;
  const wanted = blockAt(within.version, within.first, prefix);
  const sorted = [...taken].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  let first = within.first;
  for (const block of sorted) {
    const end = block.first + block.size;
    if (end <= first) continue;
    if (first + wanted.size <= block.first) break;
    first = ((end + wanted.size - 1n) / wanted.size) * wanted.size;
  }
  return first + wanted.size <= within.first + within.size ? { ...wanted, first } : null;
}

/** Parses a single IPv4 or IPv6 address (no prefix) to its number, or null when it is not one. */
export function parseAddress(text: string): { version: 4 | 6; value: bigint } | null {
  const version = net.isIP(text);
  if (version === 4) return { version, value: ipv4ToBigInt(text) };
  if (version === 6 && !text.includes('.') && !text.includes('%')) return { version, value: ipv6ToBigInt(text) };
  return null;
}

/** The canonical text of an address: dotted IPv4, or IPv6 per RFC 5952 (lower case, longest zero run as `::`). */
export function formatAddress(version: 4 | 6, value: bigint): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.length < 2) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** The mask of a prefix length, written as an address (`255.255.255.0`, `ffff:ffff:ffff:ffff::`). */
export function prefixMask(version: 4 | 6, prefix: number): string {
  const bits = version === 4 ? 32 : 128;
  const all = (1n << BigInt(bits)) - 1n;
  return formatAddress(version, all ^ ((1n << BigInt(bits - prefix)) - 1n));
}

/** An interface's address with its prefix (`192.0.2.10/24`): host bits allowed, unlike parseCidr; null when it is not one. */
export function parseAddressWithPrefix(text: string): { version: 4 | 6; value: bigint; prefix: number; network: Block } | null {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text);
  const address = match?.[1] === undefined ? null : parseAddress(match[1]);
  if (!address || match?.[2] === undefined) return null;
  const prefix = Number(match[2]);
  const bits = address.version === 4 ? 32 : 128;
  if (prefix > bits) return null;
  const size = 1n << BigInt(bits - prefix);
  return { ...address, prefix, network: blockAt(address.version, (address.value / size) * size, prefix) };
}
