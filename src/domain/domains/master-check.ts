import type { Config } from '../../config.ts';
import { transferTimeoutMs, transferZone } from '../../dns/axfr-client.ts';
import { formatHostPort } from '../../dns/host-port.ts';
import { serialNewer } from '../../dns/serial.ts';
import { querySoaSerial } from '../../dns/soa-query.ts';
import { ZoneTransferError } from '../../dns/transfer-error.ts';
import type { ZoneRecord } from '../../dns/zone.ts';
import type { EgressGate } from '../../net/egress-gate.ts';

/** What asking a slave domain's masters found. */
export type MasterCheck =
  /** A master has the serial the copy has (or an older one): the copy is current. */
  | { kind: 'current'; master: string }
  /** A master had a newer zone (or there was no copy): here it is, the SOA first. */
  | { kind: 'transferred'; master: string; records: ZoneRecord[] }
  /** No master answered with the zone: why, master by master. */
  | { kind: 'failed'; error: string };

/**
 * Asks the masters in turn, as a secondary nameserver does (RFC 1035 4.3.5): the SOA's serial
 * first, then the zone by AXFR when the serial is newer than the copy's (`copySerial`, null for no
 * copy). The first master that gives an answer settles it; a master `gate` refuses is not asked.
 * Network only: it writes nothing.
 */
export async function checkMasters(
  config: Pick<Config, 'dnsMasterPort' | 'dnsTimeoutMs'>,
  origin: string,
  masterIps: readonly string[],
  copySerial: number | null,
  gate: EgressGate,
): Promise<MasterCheck> {
  const failures: string[] = [];
  for (const ip of masterIps) {
    const server = { host: ip, port: config.dnsMasterPort };
    try {
      const serial = await querySoaSerial(server, origin, config.dnsTimeoutMs, gate);
      if (copySerial !== null && !serialNewer(serial, copySerial)) return { kind: 'current', master: formatHostPort(server) };
      const zone = await transferZone({
        ...server,
        zone: origin,
        timeoutMs: transferTimeoutMs(config.dnsTimeoutMs),
        gate,
      });
      return { kind: 'transferred', master: formatHostPort(server), records: zone.records };
    } catch (error) {
      if (!(error instanceof ZoneTransferError)) throw error;
      failures.push(error.message);
    }
  }
  return { kind: 'failed', error: failures.join('; ') || 'The domain has no master IP address' };
}
