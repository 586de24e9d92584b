import type { Kysely } from 'kysely';
import type { AccountTable } from '../domain/account/account.table.ts';
import type { EntityGrantTable, UserTable } from '../domain/account/user.table.ts';
import type { KernelTable, NodeTypeTable, RegionTable } from '../domain/catalog/catalog.table.ts';
import type { EventTable } from '../domain/events/event.table.ts';
import type { ImageTable } from '../domain/images/image.table.ts';
import type { SshKeyTable } from '../domain/profile/ssh-key.table.ts';
import type { TokenTable } from '../domain/profile/token.table.ts';
import type { JobTable } from '../jobs/job.table.ts';

export interface Database {
  accounts: AccountTable;
  users: UserTable;
  entity_grants: EntityGrantTable;
  tokens: TokenTable;
  ssh_keys: SshKeyTable;
  events: EventTable;
  jobs: JobTable;
  regions: RegionTable;
  node_types: NodeTypeTable;
  kernels: KernelTable;
  images: ImageTable;
}

export type Db = Kysely<Database>;
export type DbKind = 'sqlite' | 'postgres';
