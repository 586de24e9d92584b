import type { Generated } from 'kysely';

/** A managed credential; username and password are sealed (src/secrets/secret-box.ts), never plain. */
export interface ManagedCredentialTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** Null when the credential was given no username. */
  username_sealed: string | null;
  password_sealed: string;
  /** When the operator last revealed it (the reference's "decrypted by support staff"). */
  last_decrypted: string | null;
  created: string;
  updated: string;
}

/** The account's managed SSH key pair, made on first request. */
export interface ManagedSshKeyTable {
  account_id: number;
  public_key: string;
  private_key_sealed: string;
  created: string;
}

declare module '../../../db/database.ts' {
  interface Database {
    managed_credentials: ManagedCredentialTable;
    managed_ssh_keys: ManagedSshKeyTable;
  }
}
