import type { Kysely } from 'kysely';
import type { OperatorSettingTable } from '../admin/settings.table.ts';
import type { AccountTable } from '../domain/account/account.table.ts';
import type { EntityGrantTable, UserTable } from '../domain/account/user.table.ts';
import type { KernelTable, NodeTypeTable, RegionTable } from '../domain/catalog/catalog.table.ts';
import type {
  DomainRecordTable,
  DomainSlaveZoneTable,
  DomainTable,
  DomainZoneFileTable,
} from '../domain/domains/domain.table.ts';
import type { EventTable } from '../domain/events/event.table.ts';
import type { FirewallDeviceTable, FirewallTable } from '../domain/firewalls/firewall.table.ts';
import type { ImageTable } from '../domain/images/image.table.ts';
import type { ImageUploadTable } from '../domain/images/image-upload.table.ts';
import type { ManagedContactTable } from '../domain/managed/contacts/contact.table.ts';
import type { ManagedCredentialTable, ManagedSshKeyTable } from '../domain/managed/credentials/credential.table.ts';
import type { ManagedIssueTable } from '../domain/managed/issues/issue.table.ts';
import type { ManagedNodeSettingsTable } from '../domain/managed/node-settings/node-settings.table.ts';
import type { ManagedServiceTable } from '../domain/managed/services/service.table.ts';
import type { IpAddressTable } from '../domain/networking/ip-address.table.ts';
import type { IpAllowanceTable } from '../domain/networking/ip-allowance.table.ts';
import type { IpShareTable } from '../domain/networking/ip-share.table.ts';
import type { Ipv6BlockTable } from '../domain/networking/ipv6-block.table.ts';
import type { VlanTable } from '../domain/networking/vlan.table.ts';
import type { BackupTable } from '../domain/nodes/backups/backup.table.ts';
import type { ConfigTable } from '../domain/nodes/configs/config.table.ts';
import type { DiskTable } from '../domain/nodes/disks/disk.table.ts';
import type { NodeTable } from '../domain/nodes/node.table.ts';
import type { OAuthAppTable } from '../domain/oauth/oauth-app.table.ts';
import type { OAuthClientTable } from '../domain/oauth/oauth-client.table.ts';
import type { OAuthCodeTable, OAuthRefreshTokenTable } from '../domain/oauth/oauth-grant.table.ts';
import type { SshKeyTable } from '../domain/profile/ssh-key.table.ts';
import type { TokenTable } from '../domain/profile/token.table.ts';
import type { StackScriptTable } from '../domain/stackscripts/stackscript.table.ts';
import type { EntityTagTable, TagTable } from '../domain/tags/tag.table.ts';
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
  image_uploads: ImageUploadTable;
  nodes: NodeTable;
  disks: DiskTable;
  configs: ConfigTable;
  backups: BackupTable;
  ip_addresses: IpAddressTable;
  ip_allowances: IpAllowanceTable;
  ip_shares: IpShareTable;
  ipv6_blocks: Ipv6BlockTable;
  vlans: VlanTable;
  tags: TagTable;
  entity_tags: EntityTagTable;
  stackscripts: StackScriptTable;
  operator_settings: OperatorSettingTable;
  firewalls: FirewallTable;
  firewall_devices: FirewallDeviceTable;
  domains: DomainTable;
  domain_records: DomainRecordTable;
  domain_zone_files: DomainZoneFileTable;
  domain_slave_zones: DomainSlaveZoneTable;
  managed_credentials: ManagedCredentialTable;
  managed_ssh_keys: ManagedSshKeyTable;
  managed_contacts: ManagedContactTable;
  oauth_clients: OAuthClientTable;
  oauth_apps: OAuthAppTable;
  oauth_codes: OAuthCodeTable;
  oauth_refresh_tokens: OAuthRefreshTokenTable;
  managed_node_settings: ManagedNodeSettingsTable;
  managed_services: ManagedServiceTable;
  managed_issues: ManagedIssueTable;
}

export type Db = Kysely<Database>;
export type DbKind = 'sqlite' | 'postgres';
