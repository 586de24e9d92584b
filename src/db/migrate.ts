import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Db, DbKind } from './database.ts';
import * as platform from './migrations/0001-platform.ts';
import * as compute from './migrations/0002-compute.ts';
import * as operator from './migrations/0003-operator.ts';
import * as ipAllowances from './migrations/0004-ip-allowances.ts';
import * as bootstrapTokenPrefixes from './migrations/0005-bootstrap-token-prefixes.ts';
import * as firewalls from './migrations/0006-firewalls.ts';
import * as ipv6Blocks from './migrations/0007-ipv6-blocks.ts';
import * as ipShares from './migrations/0008-ip-shares.ts';
import * as domains from './migrations/0010-domains.ts';
import * as slaveZones from './migrations/0011-slave-zones.ts';
import * as managedContactsNodeSettings from './migrations/0012-managed-contacts-node-settings.ts';
import * as managedCredentials from './migrations/0013-managed-credentials.ts';
import * as managedServices from './migrations/0014-managed-services.ts';
import * as oauthClients from './migrations/0015-oauth-clients.ts';
import * as userPasswords from './migrations/0016-user-passwords.ts';
import * as oauthAuthorizations from './migrations/0017-oauth-authorizations.ts';
import * as jobConcurrencyKeys from './migrations/0018-job-concurrency-keys.ts';
import * as managedServiceReprobes from './migrations/0019-managed-service-reprobes.ts';
import * as oauthGrantFamilies from './migrations/0020-oauth-grant-families.ts';
import * as consoleTickets from './migrations/0021-console-tickets.ts';
import * as nodeSamples from './migrations/0022-node-samples.ts';
import * as computeHosts from './migrations/0023-compute-hosts.ts';
import * as addressOrderIndex from './migrations/0024-address-order-index.ts';
import * as nodeLists from './migrations/0025-node-lists.ts';
import * as jobClaimOrder from './migrations/0026-job-claim-order.ts';
import * as jobClaimFunction from './migrations/0027-job-claim-function.ts';
import * as regionSiteType from './migrations/0028-region-site-type.ts';
import * as eventRecords from './migrations/0029-event-records.ts';
import * as firewallRulesVersion from './migrations/0030-firewall-rules-version.ts';
import * as userSignIns from './migrations/0031-user-sign-ins.ts';
import * as privateImagesFirst from './migrations/0032-private-images-first.ts';
import * as computeHostDiskCapacity from './migrations/0033-compute-host-disk-capacity.ts';
import type { MigrationDb } from './migrations/schema-helpers.ts';

interface Step {
  up(db: MigrationDb, kind: DbKind): Promise<void>;
}

/** In order; a migration's name never changes once released. */
const STEPS: Record<string, Step> = {
  '0001-platform': platform,
  '0002-compute': compute,
  '0003-operator': operator,
  '0004-ip-allowances': ipAllowances,
  '0005-bootstrap-token-prefixes': bootstrapTokenPrefixes,
  '0006-firewalls': firewalls,
  '0007-ipv6-blocks': ipv6Blocks,
  '0008-ip-shares': ipShares,
  '0010-domains': domains,
  '0011-slave-zones': slaveZones,
  '0012-managed-contacts-node-settings': managedContactsNodeSettings,
  '0013-managed-credentials': managedCredentials,
  '0014-managed-services': managedServices,
  '0015-oauth-clients': oauthClients,
  '0016-user-passwords': userPasswords,
  '0017-oauth-authorizations': oauthAuthorizations,
  '0018-job-concurrency-keys': jobConcurrencyKeys,
  '0019-managed-service-reprobes': managedServiceReprobes,
  '0020-oauth-grant-families': oauthGrantFamilies,
  '0021-console-tickets': consoleTickets,
  '0022-node-samples': nodeSamples,
  '0023-compute-hosts': computeHosts,
  '0024-address-order-index': addressOrderIndex,
  '0025-node-lists': nodeLists,
  '0026-job-claim-order': jobClaimOrder,
  '0027-job-claim-function': jobClaimFunction,
  '0028-region-site-type': regionSiteType,
  '0029-event-records': eventRecords,
  '0030-firewall-rules-version': firewallRulesVersion,
  '0031-user-sign-ins': userSignIns,
  '0032-private-images-first': privateImagesFirst,
  '0033-compute-host-disk-capacity': computeHostDiskCapacity,
};

class InCodeMigrations implements MigrationProvider {
  #kind: DbKind;
  constructor(kind: DbKind) {
    this.#kind = kind;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    const kind = this.#kind;
    return Object.fromEntries(
      Object.entries(STEPS).map(([name, step]) => [name, { up: (db: MigrationDb) => step.up(db, kind) }]),
    );
  }
}

/** The migrations this code knows, in order: the schema version a snapshot is stamped with. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(STEPS);

export async function migrateToLatest(db: Db, kind: DbKind): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new InCodeMigrations(kind) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
