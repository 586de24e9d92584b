import net from 'node:net';

function family(address: string): 'ipv4' | 'ipv6' | null {
  const version = net.isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

/** Whether `address` is one of `list`'s IP addresses (an IPv4-mapped IPv6 address matches its IPv4 address). */
export function isListedAddress(list: readonly string[], address: string): boolean {
  const listed = new net.BlockList();
  for (const ip of list) {
    const f = family(ip);
    if (f) listed.addAddress(ip, f);
  }
  const f = family(address);
  return f !== null && listed.check(address, f);
}
