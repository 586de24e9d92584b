import type { Context } from '../../context.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { upsertInstallationClient } from './oauth-client.repository.ts';

/** Account 0 has no users: its clients belong to the installation and no account lists them. */
export const INSTALLATION_ACCOUNT_ID = 0;

/** The web console's client: public (PKCE), the same id on every installation so its page can name it. */
export const CONSOLE_CLIENT_ID = 'cumulo-console';

/** Where the console sends a sign-in back to: its own page, at the root of this server's address. */
export function consoleRedirectUri(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/`;
}

/**
 * Registers the console's client at start-up (once; parallel starts insert it once between them) and
 * keeps its registered address on the configured public URL. Without one, the console may also be
 * reached at the other spellings of the listen address (http/public-url.ts ownBaseUrls), which the
 * authorization server allows for this client alone; never at an address a request names.
 */
export async function ensureConsoleClient(ctx: Context): Promise<void> {
  const redirectUri = consoleRedirectUri(ctx.config.publicUrl ?? `http://127.0.0.1:${ctx.config.port}`);
  const now = toTimestamp(ctx.clock.nowMs());
  await upsertInstallationClient(ctx.db, {
    id: CONSOLE_CLIENT_ID,
    account_id: INSTALLATION_ACCOUNT_ID,
    label: 'Cumulo console',
    redirect_uri: redirectUri,
    public: 1,
    secret_hash: null,
    status: 'active',
    created: now,
    updated: now,
  });
}
