import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { Config } from '../../config.ts';
import type { ZoneSource } from '../../dns/zone.ts';
import { lookupName } from '../../dns/zone-lookup.ts';
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

/** How many CNAMEs inside one of Cumulo's zones a name may lead through. */
const MAX_CNAMES = 8;

/**
 * The A or AAAA addresses Cumulo's own zones give a name, through CNAMEs inside the zone; null when
 * no zone of Cumulo's holds the name (or a CNAME leads out of it): then the resolvers are asked.
 */
async function ownAnswers(zones: ZoneSource, name: string, type: 'A' | 'AAAA'): Promise<string[] | null> {
  const zone = await zones.zoneFor(name);
  if (!zone) return null;
  let current = name;
  for (let step = 0; step <= MAX_CNAMES; step += 1) {
    const found = lookupName(zone, current, type);
    if (found.kind !== 'found') return [];
    const addresses = found.records.filter((r) => r.type === type).map((r) => String(r.data));
    const cname = found.records.find((r) => r.type === 'CNAME');
    if (addresses.length > 0 || !cname) return addresses;
    current = String(cname.data);
    if (current !== zone.origin && !current.endsWith(`.${zone.origin}`)) return null;
  }
  return [];
}

/** The name's addresses from a resolver; a failure is the refusal that says why. */
async function resolvedAnswers(
  config: Pick<Config, 'dnsResolvers' | 'dnsTimeoutMs'>,
  name: string,
  type: 'A' | 'AAAA',
  address: string,
): Promise<string[]> {
  const resolver = new dns.Resolver({ timeout: config.dnsTimeoutMs, tries: 1 });
  if (config.dnsResolvers) resolver.setServers(config.dnsResolvers);
  // With several servers the resolver may try each in turn: the whole lookup ends at the timeout.
  const deadline = setTimeout(() => resolver.cancel(), config.dnsTimeoutMs);
  try {
    return type === 'A' ? await resolver.resolve4(name) : await resolver.resolve6(name);
  } catch (error) {
    throw fail.badRequest(lookupFailure(name, type, address, config.dnsTimeoutMs, error), 'rdns');
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * Refuses (400 on `rdns`) a reverse DNS name for `address` unless forward DNS already points the
 * name at it: its A records for an IPv4 address, AAAA for IPv6. A name in one of Cumulo's own active
 * zones is answered from its records; any other, the configured resolvers (the system's by default)
 * are asked, giving up after the configured timeout. It goes over the network, so a
 * caller runs it before opening its transaction, never while it holds row locks.
 */
export async function assertForwardDns(
  config: Pick<Config, 'dnsResolvers' | 'dnsTimeoutMs'>,
  zones: ZoneSource,
  address: string,
  name: string,
): Promise<void> {
  const type = net.isIP(address) === 4 ? 'A' : 'AAAA';
  const answers = (await ownAnswers(zones, name, type)) ?? (await resolvedAnswers(config, name, type, address));
  const found = answers.map((a) => canonicalAddress(a) ?? a);
  if (found.length === 0) throw fail.badRequest(noRecord(name, type, address), 'rdns');
  if (!found.includes(address)) {
    throw fail.badRequest(
      `${name} points at ${listed(found)} (${type}), not at ${address}: point it at ${address} first`,
      'rdns',
    );
  }
}
