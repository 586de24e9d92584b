import net from 'node:net';
import { hostNameProblem } from './names.ts';

export interface HostPort {
  /** An IP address (IPv6 without brackets) or a DNS name without its trailing dot. */
  host: string;
  port: number;
}

/**
 * Reads `host`, `host:port`, `[ipv6]:port` or a bare IPv6 address (no port: `defaultPort`). Null when
 * the text is none of these or the port is not 1..65535 (0 also with `allowPortZero`, for listening).
 */
export function parseHostPort(text: string, defaultPort: number, options: { allowPortZero?: boolean } = {}): HostPort | null {
  const trimmed = text.trim();
  if (net.isIPv6(trimmed)) return { host: trimmed, port: defaultPort };
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(trimmed);
  if (!match) return null;
  const bracketed = match[1] !== undefined;
  const host = bracketed ? (match[1] ?? '') : (match[2] ?? '').replace(/\.$/, '');
  // Digits and dots only must be an IPv4 address, not a name.
  const valid = bracketed
    ? net.isIPv6(host)
    : net.isIPv4(host) || (hostNameProblem(host.toLowerCase()) === null && !/^[\d.]+$/.test(host));
  if (!valid) return null;
  const port = match[3] === undefined ? defaultPort : Number(match[3]);
  if (port > 65535 || (port === 0 && !options.allowPortZero)) return null;
  return { host, port };
}

/** `host:port`, with brackets around an IPv6 address. */
export function formatHostPort({ host, port }: HostPort): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}
