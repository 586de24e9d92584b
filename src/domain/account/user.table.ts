import type { Generated } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  account_id: number;
  username: string;
  email: string;
  restricted: number;
  /** JSON object of the global grants; meaningful only for restricted users. */
  global_grants: string;
  timezone: string;
  email_notifications: number;
  ip_whitelist_enabled: number;
  lish_auth_method: string;
  /** JSON array of public keys for console access. */
  authorized_keys: string;
  /** scrypt (src/secrets/password-hash.ts); null for a user who signs in with tokens only. */
  password_hash: string | null;
  /** When the password was last set; null while the user has none. */
  password_created: string | null;
  /** The last sign-in through the sign-in page with the right password; null before the first. */
  last_login: string | null;
  created: string;
}

/** Per-entity grants of a restricted user: one row per entity the user may see. */
export interface EntityGrantTable {
  account_id: number;
  user_id: number;
  entity_type: string;
  entity_id: number;
  permissions: string;
}

declare module '../../db/database.ts' {
  interface Database {
    users: UserTable;
    entity_grants: EntityGrantTable;
  }
}
