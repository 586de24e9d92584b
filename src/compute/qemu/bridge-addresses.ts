import { formatAddress, parseAddress } from '../../net/cidr.ts';
import type { MachineInterface, NetworkSettings } from '../driver.ts';

/** What bridge networking makes of a public interface's addresses. */
export interface InterfaceAddresses {
  /** On the region's bridge: the IPv4 gateway with its subnet's prefix, the IPv6 gateway as a /64. */
  gateways: string[];
  /** Reached from the host through the namespace: the IPv4 addresses in the gateway's subnet, and the IPv6 address. */
  routed: { ipv4: string[]; ipv6: string[] };
  /** Every address the guest holds on the interface (the link-local one from its MAC too), without prefixes. */
  own: { ipv4: string[]; ipv6: string[] };
}

function parsed(text: string, version: 4 | 6, what: string): { value: bigint; prefix: number } {
  const [address = '', prefix] = text.split('/');
  const value = parseAddress(address);
  const bits = version === 4 ? 32 : 128;
  const length = prefix === undefined ? bits : Number(prefix);
  if (value?.version !== version || !Number.isInteger(length) || length < 0 || length > bits)
    throw new Error(`${what} ${JSON.stringify(text)} is not an IPv${version} address`);
  return { value: value.value, prefix: length };
}

function sameSubnet(a: bigint, b: bigint, prefix: number): boolean {
  return a >> BigInt(32 - prefix) === b >> BigInt(32 - prefix);
}

/** The link-local address a guest makes from its MAC (modified EUI-64). */
export function linkLocalOf(mac: string): string {
  const bytes = mac.split(':').map((b) => Number.parseInt(b, 16));
  if (bytes.length !== 6 || bytes.some((b) => !Number.isInteger(b) || b < 0 || b > 255))
    throw new Error(`not a MAC address: ${mac}`);
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = bytes;
  const id = [a ^ 2, b, c, 0xff, 0xfe, d, e, f].reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  return formatAddress(6, (0xfe80n << 112n) | id);
}

export function interfaceAddresses(iface: MachineInterface): InterfaceAddresses {
  const settings: NetworkSettings | null = iface.addresses;
  const ipv4 = (settings?.ipv4 ?? []).map((text) => ({ text, ...parsed(text, 4, `${settings?.interface} address`) }));
  const gateways: string[] = [];
  const routed4: string[] = [];
  if (settings?.gateway4 !== undefined) {
    const gateway = parsed(settings.gateway4, 4, `${settings.interface} gateway4`).value;
    const subnet = ipv4.find((a) => sameSubnet(a.value, gateway, a.prefix));
    if (subnet === undefined)
      throw new Error(`${settings.interface}: gateway ${settings.gateway4} is in the subnet of none of its addresses`);
    gateways.push(`${formatAddress(4, gateway)}/${subnet.prefix}`);
    for (const a of ipv4)
      if (a.prefix === subnet.prefix && sameSubnet(a.value, gateway, a.prefix)) routed4.push(formatAddress(4, a.value));
  }
  const ipv6 =
    settings?.ipv6 === undefined ? [] : [formatAddress(6, parsed(settings.ipv6, 6, `${settings.interface} ipv6`).value)];
  if (settings?.gateway6 !== undefined)
    gateways.push(`${formatAddress(6, parsed(settings.gateway6, 6, `${settings.interface} gateway6`).value)}/64`);
  return {
    gateways,
    routed: { ipv4: routed4, ipv6 },
    own: { ipv4: ipv4.map((a) => formatAddress(4, a.value)), ipv6: [...ipv6, linkLocalOf(iface.mac)] },
  };
}
