import { promises as dns } from 'node:dns';
import { type EgressGate, EgressRefusedError } from '../net/egress-gate.ts';
import { formatHostPort, type HostPort } from './host-port.ts';
import { ZoneTransferError } from './transfer-error.ts';

const WHY: Record<string, string> = {
  [dns.REFUSED]: 'refused the question',
  [dns.NOTFOUND]: 'does not know the zone (NXDOMAIN)',
  [dns.NODATA]: 'has no SOA record for it',
  [dns.SERVFAIL]: 'failed to answer (SERVFAIL)',
  [dns.TIMEOUT]: 'did not answer in time',
  [dns.CANCELLED]: 'did not answer in time',
  [dns.CONNREFUSED]: 'refused the connection',
};

/** The address to ask `server` at, as `gate` checked it; a refusal is a ZoneTransferError and nothing is sent. */
export async function checkedServer(server: HostPort, gate: EgressGate): Promise<string> {
  try {
    return (await gate(server.host, server.port)).address;
  } catch (error) {
    if (error instanceof EgressRefusedError) {
      throw new ZoneTransferError(
        'not_allowed',
        `The nameserver at ${formatHostPort(server)} is not one this service may connect to`,
      );
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw new ZoneTransferError('unreachable', `${server.host} does not resolve (${code})`);
  }
}

/**
 * The serial of `zone`'s SOA as the nameserver at `server` gives it (RFC 1035 4.3.5: a secondary
 * asks this before it transfers the zone). Over UDP, and TCP when the answer is truncated, to the
 * address `gate` has checked; a failure is a ZoneTransferError saying why.
 */
export async function querySoaSerial(server: HostPort, zone: string, timeoutMs: number, gate: EgressGate): Promise<number> {
  const destination = await checkedServer(server, gate);
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers([formatHostPort({ host: destination, port: server.port })]);
  const deadline = setTimeout(() => resolver.cancel(), timeoutMs);
  try {
    return (await resolver.resolveSoa(zone)).serial;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    const failure = code === dns.TIMEOUT || code === dns.CANCELLED ? 'timeout' : code === dns.REFUSED ? 'refused' : 'unreachable';
    throw new ZoneTransferError(
      failure,
      `The nameserver at ${formatHostPort(server)} ${WHY[code] ?? `could not be asked (${code})`} for the SOA of ${zone}`,
    );
  } finally {
    clearTimeout(deadline);
  }
}
