import { parseAddress, parseAddressWithPrefix } from '../../net/cidr.ts';
import type { NetworkSettings } from '../driver.ts';

/** The IPv6 gateway when the settings name none: the router's link-local address on every segment. */
export const DEFAULT_GATEWAY6 = 'fe80::1';

/** Settings checked before they are written into files a shell or ifupdown reads. */
function checked(settings: NetworkSettings): NetworkSettings {
  const fail = (what: string) => {
    throw new Error(`network settings of ${JSON.stringify(settings.interface)}: ${what}`);
  };
  if (!/^[a-z][a-z0-9]{0,14}$/.test(settings.interface)) fail('not an interface name');
  for (const address of settings.ipv4)
    if (parseAddressWithPrefix(address)?.version !== 4) fail(`not an IPv4 address: ${address}`);
  if (settings.gateway4 !== undefined && parseAddress(settings.gateway4)?.version !== 4) fail('gateway4 is not an IPv4 address');
  if (settings.ipv6 !== undefined && parseAddressWithPrefix(settings.ipv6)?.version !== 6) fail('ipv6 is not an IPv6 address');
  if (settings.gateway6 !== undefined && parseAddress(settings.gateway6)?.version !== 6) fail('gateway6 is not an IPv6 address');
  return settings;
}

function gateway6Of(settings: NetworkSettings): string | undefined {
  return settings.ipv6 === undefined ? undefined : (settings.gateway6 ?? DEFAULT_GATEWAY6);
}

/**
 * The interfaces as ifupdown stanzas, for NETWORK_INTERFACES_DIR (guest.ts): each interface with its
 * static addresses, a stanza an address (ifupdown adds each to the same interface; Debian's refuses
 * a second `address` in one stanza), the gateway in the first.
 */
export function ifupdownInterfaces(network: readonly NetworkSettings[]): string {
  const stanzas = ['# Written by Cumulo when the image was deployed (its network helper).'];
  for (const settings of network.map(checked)) {
    const name = settings.interface;
    const lines = [`auto ${name}`];
    settings.ipv4.forEach((address, index) => {
      lines.push(`iface ${name} inet static`, `    address ${address}`);
      if (index === 0 && settings.gateway4 !== undefined) lines.push(`    gateway ${settings.gateway4}`);
    });
    if (settings.ipv6 !== undefined) {
      lines.push(`iface ${name} inet6 static`, `    address ${settings.ipv6}`, `    gateway ${gateway6Of(settings)}`);
    }
    if (settings.ipv4.length === 0 && settings.ipv6 === undefined) lines.push(`iface ${name} inet manual`);
    stanzas.push(lines.join('\n'));
  }
  return `${stanzas.join('\n\n')}\n`;
}
