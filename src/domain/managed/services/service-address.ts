import net from 'node:net';
import { parseHostPort } from '../../../dns/host-port.ts';
import { normaliseIp } from '../../../net/ip-address.ts';

/** Where a probe connects: `host` is a name or an IP address (IPv6 without brackets), as written. */
export type ProbeTarget = { type: 'url'; url: string; host: string; port: number } | { type: 'tcp'; host: string; port: number };

/**
 * What a probe of `address` reaches, by service type: an http(s) URL for `url` (its fragment is not
 * kept), `host:port` (`[ipv6]:port`) for `tcp`. A string says what is wrong with it.
 */
export function probeTarget(type: string, address: string): ProbeTarget | string {
  if (type === 'tcp') {
    const hostPort = /:\d+$/.test(address.trim()) ? parseHostPort(address, 0) : null;
    if (!hostPort) return 'Must be host:port for a tcp service (an IPv6 address in brackets), with a port 1..65535';
    return { type: 'tcp', ...hostPort };
  }
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    return 'Must be an http:// or https:// URL for a url service';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return 'Must be an http:// or https:// URL for a url service';
  }
  if (url.username || url.password) return 'Must not hold a user name or password: name a managed credential instead';
  const text = address.trim();
  const hash = text.indexOf('#');
  return {
    type: 'url',
    url: hash === -1 ? text : text.slice(0, hash),
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
  };
}

const privateRanges = new net.BlockList();
privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');

/** Whether `host` is an RFC 1918 address (in any spelling): one only a region's private network reaches. */
export function isPrivateAddress(host: string): boolean {
  const ip = normaliseIp(host);
  return ip !== null && net.isIPv4(ip) && privateRanges.check(ip, 'ipv4');
}
