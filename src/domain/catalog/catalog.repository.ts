import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Catalog } from './catalog.ts';

const flag = (b: boolean) => (b ? 1 : 0);

/** Makes the catalog tables match the catalog file (with the operator's region outages); private images are left alone. */
export async function syncCatalog(db: Kysely<Database>, catalog: Catalog): Promise<void> {
  const { regions, types, kernels, images } = catalog.data;
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('regions').execute();
    await trx.deleteFrom('node_types').execute();
    await trx.deleteFrom('kernels').execute();
    if (regions.length) {
      await trx
        .insertInto('regions')
        .values(
          regions.map((r, sort) => ({
            id: r.id,
            label: r.label,
            country: r.country,
            capabilities: JSON.stringify(r.capabilities),
            resolvers_ipv4: r.resolvers.ipv4,
            resolvers_ipv6: r.resolvers.ipv6,
            status: catalog.region(r.id)?.status ?? r.status,
            site_type: r.site_type ?? 'core',
            host_uuid: catalog.hostUuid(r.id),
            sort,
          })),
        )
        .execute();
    }
    await trx
      .insertInto('node_types')
      .values(
        types.map((t, sort) => ({
          id: t.id,
          label: t.label,
          class: t.class,
          disk: t.disk,
          memory: t.memory,
          vcpus: t.vcpus,
          gpus: t.gpus,
          transfer: t.transfer,
          network_out: t.network_out,
          price_hourly: t.price.hourly,
          price_monthly: t.price.monthly,
          backups_price_hourly: t.addons.backups.price.hourly,
          backups_price_monthly: t.addons.backups.price.monthly,
          successor: t.successor,
          sort,
        })),
      )
      .execute();
    await trx
      .insertInto('kernels')
      .values(
        kernels.map((k, sort) => ({
          id: k.id,
          label: k.label,
          version: k.version,
          kvm: flag(k.kvm),
          xen: flag(k.xen),
          architecture: k.architecture,
          pvops: flag(k.pvops),
          deprecated: flag(k.deprecated),
          built: k.built,
          sort,
        })),
      )
      .execute();
    await trx.deleteFrom('images').where('is_public', '=', 1).execute();
    await trx
      .insertInto('images')
      .values(
        images.map((i, sort) => ({
          id: i.id,
          account_id: null,
          label: i.label,
          description: i.description,
          created: i.created,
          updated: i.created,
          created_by: 'node',
          deprecated: flag(i.deprecated),
          is_public: 1,
          size: i.size,
          type: 'manual',
          expiry: null,
          eol: i.eol,
          vendor: i.vendor,
          status: 'available',
          sort,
        })),
      )
      .execute();
  });
}

/** The status `GET /regions` shows for one region (the operator's outage, or its end). */
export async function updateRegionStatus(db: Kysely<Database>, id: string, status: string): Promise<void> {
  await db.updateTable('regions').set({ status }).where('id', '=', id).execute();
}
