import type { Context } from '../../context.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import type { Principal } from '../account/principal.ts';
import { forgetCachedTokens } from '../profile/token.service.ts';
import { type AppOwner, type AppView, deleteAppRow, findApp, listApps } from './oauth-app.repository.ts';
import type { AuthorizedApp } from './oauth-app.schema.ts';

function ownerOf(p: Principal): AppOwner {
  return { accountId: p.accountId, userId: p.userId };
}

/** The site of the app: where its client sends users back to. */
function websiteOf(redirectUri: string): string {
  return new URL(redirectUri).host;
}

function appViewToApp(row: AppView): AuthorizedApp {
  return {
    id: row.id,
    label: row.label,
    thumbnail_url: null,
    scopes: row.scopes,
    created: row.created,
    expiry: row.expiry,
    website: websiteOf(row.redirect_uri),
  };
}

function nowStamp(ctx: Context): string {
  return toTimestamp(ctx.clock.nowMs());
}

export async function getApps(ctx: Context, principal: Principal, request: PageRequest): Promise<Page<AuthorizedApp>> {
  return mapPage(await listApps(ctx.db, ownerOf(principal), nowStamp(ctx), request), appViewToApp);
}

export async function getApp(ctx: Context, principal: Principal, id: number): Promise<AuthorizedApp> {
  const row = await findApp(ctx.db, ownerOf(principal), nowStamp(ctx), id);
  if (!row) throw fail.notFound();
  return appViewToApp(row);
}

/** Ends an app's access at once: its access and refresh tokens go with it. */
export async function revokeApp(ctx: Context, principal: Principal, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await findApp(trx, ownerOf(principal), nowStamp(ctx), id);
    if (!row) throw fail.notFound();
    await deleteAppRow(trx, id);
  });
  await forgetCachedTokens(ctx);
}
