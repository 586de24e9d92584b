import type { Context } from '../context.ts';
import { wipeTables } from '../db/table-data.ts';
import { describeTables } from '../db/tables.ts';
import { inTransaction } from '../db/transaction.ts';
import { ensureBootstrap } from '../domain/account/bootstrap.ts';
import { syncCatalog } from '../domain/catalog/catalog.repository.ts';
import { forgetCachedZones } from '../domain/domains/zone-cache.ts';
import { PUBLIC_IMAGE_FOLDER } from '../domain/images/public-image-data.ts';

export interface ResetOutcome {
  /** Without CUMULO_BOOTSTRAP_TOKEN: the new `admin` user's token, as a first start would print it. */
  bootstrap_token?: string;
  /** Without CUMULO_BOOTSTRAP_TOKEN and CUMULO_BOOTSTRAP_PASSWORD: the new `admin` user's password, likewise. */
  bootstrap_password?: string;
}

/**
 * Everything back to a fresh install while the server keeps serving: every table emptied (jobs, and
 * with them operations under way, and the operator's settings too) with ids starting again at 1,
 * blobs removed (but the public images an operator built, which belong to the installation), the catalog synced and the bootstrap account, user and token made again. A seeded
 * run then goes on exactly as after a fresh start.
 */
export async function resetAll(ctx: Context): Promise<ResetOutcome> {
  const tables = await describeTables(ctx.db, ctx.dbKind);
  await inTransaction(ctx.db, (trx) => wipeTables(trx, ctx.dbKind, tables));
  await ctx.operator.reload();
  forgetCachedZones(ctx.db);
  await syncCatalog(ctx.db, ctx.catalog);
  await ctx.blobs.clear({ keep: PUBLIC_IMAGE_FOLDER });
  ctx.random.reposition(`start:${ctx.operator.clockOffsetMs}`);
  const bootstrap = await ensureBootstrap(ctx, ctx.config.bootstrapToken);
  if (bootstrap.kind !== 'created') return {};
  return {
    ...(ctx.config.bootstrapToken ? {} : { bootstrap_token: bootstrap.token }),
    ...(bootstrap.password ? { bootstrap_password: bootstrap.password } : {}),
  };
}
