import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { Config } from '../../config.ts';
import { fail } from '../../errors.ts';
import { canonicalAddress } from './ip-address.service.ts';

/** How many of the addresses a name points at a refusal lists. */
const LISTED = 3;

function listed(addresses: readonly string[]): string {
  const more = addresses.length - LISTED;
  return `${addresses.slice(0, LISTED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function noRecord(name: string, type: string, address: string): string {
  return `${name} has no ${type} record: point one at ${address} first`;
}

function lookupFailure(name: string, type: string, address: string, timeoutMs: number, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === dns.NODATA) return noRecord(name, type, address);
  if (code === dns.NOTFOUND) return `${name} does not resolve (no such name): point its ${type} record at ${address} first`;
  if (code === dns.TIMEOUT || code === dns.CANCELLED) {
    return `The DNS lookup of ${name} got no answer within ${timeoutMs} ms; try again later`;
  }
  return `The DNS lookup of ${name} failed (${code ?? 'unknown error'}); try again later`;
}

/**
 * Refuses (400 on `rdns`) a reverse DNS name for `address` unless forward DNS already points the
 * name at it: its A records for an IPv4 address, AAAA for IPv6. Asks the configured resolvers (the
 * system's by default) and gives up after the configured timeout. It goes over the network, so a
 * caller runs it before opening its transaction, never while it holds row locks.
 */
export async function assertForwardDns(
  config: Pick<Config, 'dnsResolvers' | 'dnsTimeoutMs'>,
  address: string,
  name: string,
): Promise<void> {
  // Once the DNS group exists, a name inside one of Cumulo's own zones is answered from its records first.
  const version = net.isIP(address);
  const type = version === 4 ? 'A' : 'AAAA';
  const resolver = new dns.Resolver({ timeout: config.dnsTimeoutMs, tries: 1 });
  if (config.dnsResolvers) resolver.setServers(config.dnsResolvers);
  // With several servers the resolver may try each in turn: the whole lookup ends at the timeout.
  const deadline = setTimeout(() => resolver.cancel(), config.dnsTimeoutMs);
  let answers: string[];
  try {
    answers = version === 4 ? await resolver.resolve4(name) : await resolver.resolve6(name);
  } catch (error) {
    throw fail.badRequest(lookupFailure(name, type, address, config.dnsTimeoutMs, error), 'rdns');
  } finally {
    clearTimeout(deadline);
  }
  const found = answers.map((a) => canonicalAddress(a) ?? a);
  if (found.length === 0) throw fail.badRequest(noRecord(name, type, address), 'rdns');
  if (!found.includes(address)) {
    throw fail.badRequest(
      `${name} points at ${listed(found)} (${type}), not at ${address}: point it at ${address} first`,
      'rdns',
    );
  }
}
