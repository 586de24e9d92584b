import type { JobHandler } from '../../jobs/handler.ts';
import { toTimestamp } from '../../time/timestamp.ts';

export const TOKEN_EXPIRE = 'token.expire';

/** Removes a token once its expiry has passed (it stopped authenticating at that moment already). */
const expireToken: JobHandler = {
  kind: TOKEN_EXPIRE,
  async run({ trx, payload, ctx }) {
    await trx
      .deleteFrom('tokens')
      .where('id', '=', Number(payload.tokenId))
      .where('expiry', '<=', toTimestamp(ctx.clock.nowMs()))
      .execute();
  },
};

export const tokenJobs: readonly JobHandler[] = [expireToken];
