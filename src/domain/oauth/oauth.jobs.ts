import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import type { JobHandler } from '../../jobs/handler.ts';
import { enqueueJob, releaseDedupeKey } from '../../jobs/queue.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { deleteAppRow, findAppById } from './oauth-app.repository.ts';
import { deleteCode, deleteExpiredRefreshTokens } from './oauth-grant.repository.ts';

export const OAUTH_CODE_EXPIRE = 'oauth.code_expire';
export const OAUTH_APP_EXPIRE = 'oauth.app_expire';

/** Removes an authorization code nobody exchanged once its minutes are up (it stopped working then). */
const expireCode: JobHandler = {
  kind: OAUTH_CODE_EXPIRE,
  async run({ trx, payload }) {
    await deleteCode(trx, String(payload.codeHash));
  },
};

/** Schedules the check of an app at its expiry; one job an app, moved on by the job itself. */
export async function scheduleAppExpiry(db: Kysely<Database>, ctx: Context, appId: number, expiry: string): Promise<void> {
  await enqueueJob(db, ctx.clock, {
    kind: OAUTH_APP_EXPIRE,
    payload: { appId },
    runAt: Date.parse(`${expiry}Z`),
    dedupeKey: `${OAUTH_APP_EXPIRE}:${appId}`,
  });
}

/**
 * At an app's expiry: its refresh tokens that ran out go, and so does the app (with its access
 * tokens) unless a refresh has moved its expiry on, in which case the check moves on with it.
 */
const expireApp: JobHandler = {
  kind: OAUTH_APP_EXPIRE,
  async run({ trx, job, payload, ctx }) {
    const appId = Number(payload.appId);
    const now = toTimestamp(ctx.clock.nowMs());
    await deleteExpiredRefreshTokens(trx, appId, now);
    const app = await findAppById(trx, appId);
    if (!app || app.expiry === null) return;
    if (app.expiry <= now) {
      await deleteAppRow(trx, appId);
      return;
    }
    await releaseDedupeKey(trx, job.id);
    await scheduleAppExpiry(trx, ctx, appId, app.expiry);
  },
};

export const oauthJobs: readonly JobHandler[] = [expireCode, expireApp];
