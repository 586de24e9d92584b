import { promises as dns, type LookupAddress } from 'node:dns';
import net from 'node:net';
import { type EgressPolicy, type EgressRefusal, egressRefusalText, type OwnAddressCheck } from './egress.ts';
import { normaliseIp } from './ip-address.ts';

/** Where a connection goes: an address the policy has checked. */
export interface Destination {
  address: string;
  family: 4 | 6;
}

/** A connection the egress policy refuses; nothing was sent. */
export class EgressRefusedError extends Error {
  readonly refusal: EgressRefusal;
  readonly address: string;

  constructor(address: string, refusal: EgressRefusal) {
    super(egressRefusalText(address, refusal));
    this.name = 'EgressRefusedError';
    this.address = address;
    this.refusal = refusal;
  }
}

/**
 * Resolves `host` (an address in any spelling, or a name, now: no earlier answer is trusted) and
 * checks every address it has; the connection must go to the destination returned, so that no later
 * lookup can swap it (DNS rebinding). Throws EgressRefusedError when any address is refused, the
 * resolver's error when the name does not resolve, and the signal's reason when it aborts first.
 */
export type EgressGate = (host: string, port: number, signal?: AbortSignal) => Promise<Destination>;

async function addressesOf(host: string, signal: AbortSignal | undefined): Promise<string[]> {
  const ip = normaliseIp(host);
  if (ip !== null) return [ip];
  signal?.throwIfAborted();
  const lookup = dns.lookup(host, { all: true });
  if (!signal) return (await lookup).map((a) => a.address);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return (await Promise.race([lookup, aborted])).map((a) => a.address);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The gate of the policy for connections made for one account (`isOwn`: its nodes' addresses). */
export function egressGate(policy: EgressPolicy, isOwn?: OwnAddressCheck): EgressGate {
  return async (host, port, signal) => {
    const addresses = (await addressesOf(host, signal)).map((a) => normaliseIp(a) ?? a);
    for (const address of addresses) {
      const refusal = await policy.refusal(address, port, isOwn);
      if (refusal !== null) throw new EgressRefusedError(address, refusal);
    }
    const [address] = addresses;
    if (address === undefined) throw new Error(`${host} resolved to no address`);
    return { address, family: net.isIPv4(address) ? 4 : 6 };
  };
}

/**
 * A `lookup` for node:net, node:http and node:https that answers every name with the checked
 * destination: the connection goes there while TLS (SNI, certificate) and Host still use the name.
 */
export function pinnedLookup(destination: Destination): net.LookupFunction {
  return (_hostname, options, callback) => {
    const answer: LookupAddress = { address: destination.address, family: destination.family };
    if (options.all) callback(null, [answer]);
    else callback(null, answer.address, answer.family);
  };
}
