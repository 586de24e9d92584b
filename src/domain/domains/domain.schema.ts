import { type Static, Type } from 'typebox';
import { INT32_MAX, IntegerId, StringEnum, Timestamp } from '../../http/schemas.ts';
import { TagLabel } from '../nodes/node.schema.ts';

export const DOMAIN_TYPES = ['master', 'slave'] as const;
export const DOMAIN_STATUSES = ['disabled', 'active'] as const;
export type DomainType = (typeof DOMAIN_TYPES)[number];
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** How many addresses `master_ips` and `axfr_ips` hold at most. */
export const MAX_DOMAIN_IPS = 100;

/** The name's syntax (labels, RFC 1035) is checked by the service, which can say what is wrong with it. */
export const DomainName = Type.String({ minLength: 1, maxLength: 255 });
const Seconds = Type.Integer({ minimum: 0, maximum: INT32_MAX });
const Ips = Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_DOMAIN_IPS });

export const DomainSchema = Type.Object({
  id: Type.Integer(),
  type: StringEnum(DOMAIN_TYPES),
  domain: Type.String(),
  group: Type.String(),
  status: StringEnum(DOMAIN_STATUSES),
  description: Type.String(),
  soa_email: Type.String(),
  retry_sec: Type.Integer(),
  master_ips: Type.Array(Type.String()),
  axfr_ips: Type.Array(Type.String()),
  expire_sec: Type.Integer(),
  refresh_sec: Type.Integer(),
  ttl_sec: Type.Integer(),
  tags: Type.Array(Type.String()),
  created: Timestamp,
  updated: Timestamp,
  // Why the last transfer from a slave domain's masters failed; '' when it did not (and for masters).
  errors: Type.String(),
});
export type Domain = Static<typeof DomainSchema>;

const domainFields = {
  status: Type.Optional(StringEnum(DOMAIN_STATUSES)),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  group: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  // Checked by the service: an address whose local part fits a DNS label, or '' (none: a slave needs none).
  soa_email: Type.Optional(Type.String({ maxLength: 254 })),
  master_ips: Type.Optional(Ips),
  axfr_ips: Type.Optional(Ips),
  expire_sec: Type.Optional(Seconds),
  refresh_sec: Type.Optional(Seconds),
  retry_sec: Type.Optional(Seconds),
  ttl_sec: Type.Optional(Seconds),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
};

export const CreateDomainBody = Type.Object({
  domain: DomainName,
  type: StringEnum(DOMAIN_TYPES),
  ...domainFields,
});
export type CreateDomain = Static<typeof CreateDomainBody>;

export const UpdateDomainBody = Type.Object({
  domain: Type.Optional(DomainName),
  type: Type.Optional(StringEnum(DOMAIN_TYPES)),
  ...domainFields,
});
export type UpdateDomain = Static<typeof UpdateDomainBody>;

export const CloneDomainBody = Type.Object({ domain: DomainName });
export type CloneDomain = Static<typeof CloneDomainBody>;

export const ImportDomainBody = Type.Object({
  domain: DomainName,
  // A host, or host:port ([v6]:port) when the nameserver does not listen on 53.
  remote_nameserver: Type.String({ minLength: 1, maxLength: 261 }),
});
export type ImportDomain = Static<typeof ImportDomainBody>;

export const ZoneFileSchema = Type.Object({ zone_file: Type.Array(Type.String()) });
export type ZoneFile = Static<typeof ZoneFileSchema>;

export const DomainParams = Type.Object({ domainId: IntegerId });
/** Clone and zone-file take the domain id as a string, as the reference types it; anything but a plain decimal names nothing. */
export const DomainTextParams = Type.Object({ domainId: Type.String({ pattern: '^(0|[1-9][0-9]{0,9})$' }) });
