import net from 'node:net';
import { formatAddress, parseAddress } from './cidr.ts';

/*
 * IP addresses as an outbound connection reaches them: every spelling a URL or a resolver accepts for
 * the same address comes out as one text, so that a check of that text holds for the connection.
 */

/** Characters an IPv4 address may be spelt with (decimal, octal, hex parts; fewer than four parts). */
const IPV4_SPELLING = /^[0-9a-fA-FxX.]+$/;

/**
 * The IPv4 address an IPv6 address carries in its last 32 bits and stands for: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, but not `::` or `::1`), IPv4-translated
 * (`::ffff:0:a.b.c.d`) and the well-known NAT64 prefix (`64:ff9b::a.b.c.d`); null for any other.
 */
function embeddedIpv4(ipv6: bigint): string | null {
  const group = (i: number) => Number((ipv6 >> BigInt(112 - 16 * i)) & 0xffffn);
  const groups = Array.from({ length: 8 }, (_, i) => group(i));
  const [g0, g1, , , g4, g5, g6 = 0, g7 = 0] = groups;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const mapped = zeros(0, 5) && g5 === 0xffff;
  const compatible = zeros(0, 6) && (g6 !== 0 || g7 > 1);
  const translated = zeros(0, 4) && g4 === 0xffff && g5 === 0;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && zeros(2, 6);
  if (!mapped && !compatible && !translated && !nat64) return null;
  return formatAddress(4, ipv6 & 0xffffffffn);
}

/**
 * `text` as the one address it names, or null when it names none (a host name, garbage): an IPv4
 * address in dotted decimal whatever its spelling (`2130706433`, `127.1`, `0x7f.1`, `017700000001`),
 * an IPv6 address compressed in lower case without brackets or zone, and an IPv6 address that stands
 * for an IPv4 one (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as that IPv4 address.
 */
export function normaliseIp(text: string): string | null {
  const bare = text.trim().replace(/^\[(.*)\]$/, '$1');
  if (net.isIPv6(bare)) {
    const unzoned = bare.replace(/%.*$/, '');
    let canonical: string;
    try {
      canonical = new URL(`http://[${unzoned}]/`).hostname.slice(1, -1);
    } catch {
      return null;
    }
    const parsed = parseAddress(canonical);
    return (parsed && embeddedIpv4(parsed.value)) ?? canonical;
  }
  if (!IPV4_SPELLING.test(bare)) return null;
  try {
    // The URL host parser reads every IPv4 spelling the system's resolver accepts.
    const host = new URL(`http://${bare}/`).hostname;
    return net.isIPv4(host) ? host : null;
  } catch {
    return null;
  }
}

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** An operator's range: `ip/prefix` (host bits allowed) or a bare `ip` (the one address); null when it is not one. */
export function parseRange(text: string): Cidr | null {
  const match = /^([^/\s]+)(?:\/(\d{1,3}))?$/.exec(text.trim());
  if (!match?.[1]) return null;
  const address = match[1];
  const version = net.isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = match[2] === undefined ? max : Number(match[2]);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
