import { type Static, Type } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.ts';
import { PATTERN_REASON } from '../../http/validation.ts';

const PROMOTION_SERVICE_TYPES = [
  'all',
  'backup',
  'blockstorage',
  'db_mysql',
  'ip_v4',
  'node',
  'node_disk',
  'node_memory',
  'longview',
  'managed',
  'nodebalancer',
  'objectstorage',
  'transfer_tx',
] as const;

const Promotion = Type.Object({
  credit_monthly_cap: Type.String(),
  credit_remaining: Type.String(),
  description: Type.String(),
  expire_dt: Type.String(),
  image_url: Type.String(),
  summary: Type.String(),
  this_month_credit_remaining: Type.String(),
  service_type: StringEnum(PROMOTION_SERVICE_TYPES),
});

export const AccountSchema = Type.Object({
  active_promotions: Type.Array(Promotion),
  active_since: Timestamp,
  address_1: Type.String(),
  address_2: Type.String(),
  balance: Type.Number(),
  balance_uninvoiced: Type.Number(),
  // Which billing system bills the account: always this service's own (the brand word, `node` here).
  billing_source: Type.String(),
  capabilities: Type.Array(Type.String()),
  city: Type.String(),
  credit_card: Type.Object({ last_four: Type.String(), expiry: Type.String() }),
  company: Type.String(),
  country: Type.String(),
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  phone: Type.String(),
  state: Type.String(),
  tax_id: Type.String(),
  euuid: Type.String({ format: 'uuid' }),
  zip: Type.String(),
});
export type Account = Static<typeof AccountSchema>;

/** Editable fields only; the read-only ones a client echoes back are accepted and ignored. */
export const UpdateAccountBody = Type.Object({
  address_1: Type.Optional(Type.String({ maxLength: 64 })),
  address_2: Type.Optional(Type.String({ maxLength: 64 })),
  city: Type.Optional(Type.String({ maxLength: 24 })),
  company: Type.Optional(Type.String({ maxLength: 128 })),
  country: Type.Optional(
    Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$', [PATTERN_REASON]: 'Must be a two-letter country code' }),
  ),
  email: Type.Optional(Type.String({ maxLength: 128, format: 'email' })),
  first_name: Type.Optional(Type.String({ maxLength: 50 })),
  last_name: Type.Optional(Type.String({ maxLength: 50 })),
  phone: Type.Optional(Type.String({ maxLength: 32 })),
  state: Type.Optional(Type.String({ maxLength: 24 })),
  tax_id: Type.Optional(Type.String({ maxLength: 100 })),
  zip: Type.Optional(
    Type.String({
      // Letters, digits, spaces and hyphens, with at most nine letters or digits.
      pattern: '^[ -]*(?:[A-Za-z0-9][ -]*){0,9}$',
      [PATTERN_REASON]: 'May hold only letters, digits, spaces and hyphens, with at most 9 letters or digits',
    }),
  ),
});
export type UpdateAccount = Static<typeof UpdateAccountBody>;
