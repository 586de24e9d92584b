import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { transferTimeoutMs, transferZone } from '../../dns/axfr-client.ts';
import { formatHostPort, parseHostPort } from '../../dns/host-port.ts';
import { domainNameProblem, relativeName } from '../../dns/names.ts';
import { ZoneTransferError } from '../../dns/transfer-error.ts';
import type { Zone, ZoneRecord } from '../../dns/zone.ts';
import { ApiError, fail } from '../../errors.ts';
import type { Principal } from '../account/principal.ts';
import { egressGateFor } from '../networking/egress.service.ts';
import { roundRecordTtl } from './dns-timing.ts';
import type { Domain, ImportDomain } from './domain.schema.ts';
import { createDomainWith } from './domain-create.ts';
import { domainColumns, NEW_DOMAIN } from './domain-rules.ts';
import { toDomain } from './domain-view.ts';
import { CAA_TAGS, type CaaTag } from './record.schema.ts';
import { type RecordCandidate, type RecordValues, recordValues } from './record-rules.ts';

/** The SOA mailbox as an address: `first\.last.example.com` is `first.last@example.com`. */
export function mailboxAddress(rname: string): string {
  const match = /^((?:[^.\\]|\\.)*)\.(.+)$/.exec(rname);
  if (!match) return '';
  return `${(match[1] ?? '').replace(/\\(.)/g, '$1')}@${match[2]}`;
}

/** A record of a transferred zone as a record create would ask for it; null for what a domain does not hold. */
function candidateOf(record: ZoneRecord, origin: string): RecordCandidate | null {
  const name = relativeName(record.name, origin);
  const ttl_sec = roundRecordTtl(record.ttl);
  switch (record.type) {
    case 'SOA':
      return null;
    case 'NS':
      // The apex's nameservers are the installation's own once the domain is here.
      return name === '' ? null : { type: 'NS', name, target: `${record.data}.`, ttl_sec };
    case 'A':
    case 'AAAA':
      return { type: record.type, name, target: record.data, ttl_sec };
    case 'CNAME':
    case 'PTR':
      return { type: record.type, name, target: `${record.data}.`, ttl_sec };
    case 'MX':
      return {
        type: 'MX',
        name,
        target: record.data.exchange === '.' ? '' : `${record.data.exchange}.`,
        priority: record.data.preference,
        ttl_sec,
      };
    case 'TXT':
      return { type: 'TXT', name, target: record.data.join(''), ttl_sec };
    case 'SRV': {
      const labels = /^_([^.]+)\._([^.]+)$/.exec(name);
      if (!labels) return null;
      const { priority, weight, port, target } = record.data;
      return { type: 'SRV', service: labels[1], protocol: labels[2], priority, weight, port, target: `${target}.`, ttl_sec };
    }
    case 'CAA':
      if (!(CAA_TAGS as readonly string[]).includes(record.data.tag)) return null;
      return { type: 'CAA', name, tag: record.data.tag as CaaTag, target: record.data.value, ttl_sec };
  }
}

/**
 * Makes a master domain of a zone transferred from another nameserver (the import's AXFR): the SOA's
 * mailbox and timing, and every record a domain holds (the apex NS records become the installation's;
 * SRV records other than `_service._protocol` at the apex and CAA tags beyond the three are left out).
 * Checked as a create would be: a bad or taken name is a 400 on `domain`, anything else the rules
 * refuse (the SOA's mailbox, a record) a 400 on `field`. Event dns_zone_import.
 */
export async function importDomain(ctx: Context, principal: Principal, zone: Zone, field: string): Promise<Domain> {
  const soa = zone.records.find((r) => r.type === 'SOA');
  if (soa?.type !== 'SOA') throw fail.badRequest('The transferred zone has no SOA record', field);
  const origin = zone.origin.toLowerCase();
  try {
    const columns = domainColumns({
      ...NEW_DOMAIN,
      domain: origin,
      type: 'master',
      soa_email: mailboxAddress(soa.data.rname),
      expire_sec: soa.data.expire,
      refresh_sec: soa.data.refresh,
      retry_sec: soa.data.retry,
      ttl_sec: soa.data.minimum,
    });
    const records: RecordValues[] = zone.records
      .map((r) => candidateOf(r, origin))
      .filter((c): c is RecordCandidate => c !== null)
      .map((c) => recordValues(c, origin, null));
    return await inTransaction(ctx.db, async (trx) => {
      const row = await createDomainWith(trx, ctx, principal, { columns, tags: [], records }, 'dns_zone_import');
      return toDomain(trx, row);
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400 || error.errors.every((e) => e.field === 'domain')) throw error;
    throw fail.badRequest(`The transferred zone cannot be imported: ${error.message}`, field);
  }
}

/**
 * `POST /domains/import`: the zone transferred (AXFR over TCP) from `remote_nameserver` (a host, or
 * host:port) becomes a master domain with its records. The name is checked before the transfer; a
 * refused, timed-out, malformed or empty transfer, or a server the egress policy refuses (its name
 * resolved when the transfer starts), is a 400 on `remote_nameserver`, and nothing is made.
 */
export async function importFromNameserver(ctx: Context, principal: Principal, body: ImportDomain): Promise<Domain> {
  const origin = body.domain.toLowerCase();
  const nameProblem = domainNameProblem(origin);
  if (nameProblem) throw fail.badRequest(nameProblem, 'domain');
  const remote = parseHostPort(body.remote_nameserver, 53);
  if (!remote) {
    throw fail.badRequest('Must be a host name or an IP address, with :port when not 53', 'remote_nameserver');
  }
  let records: ZoneRecord[];
  try {
    const timeoutMs = transferTimeoutMs(ctx.config.dnsTimeoutMs);
    const gate = egressGateFor(ctx, principal.accountId);
    records = (await transferZone({ ...remote, zone: origin, timeoutMs, gate })).records;
  } catch (error) {
    if (!(error instanceof ZoneTransferError)) throw error;
    throw fail.badRequest(`No zone transfer of ${origin} from ${formatHostPort(remote)}: ${error.message}`, 'remote_nameserver');
  }
  return importDomain(ctx, principal, { origin, records, axfrIps: [] }, 'remote_nameserver');
}
