import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Context } from '../../context.ts';
import { toApiError } from '../../http/error-handler.ts';
import { listeningPort, ownBaseUrls } from '../../http/public-url.ts';
import { PAGE_HEADERS, signedOutPage } from './login-page.ts';
import { activeClient } from './oauth-grant.service.ts';
import { type Form, repeatedParameter, textOf } from './oauth-params.ts';
import { atOriginOf, clientRedirectUris } from './redirect-uris.ts';

/**
 * Where /logout is: beside the OAuth path (`/oauth` -> `/logout`, `/login/oauth` -> `/login/logout`),
 * as a console that knows the login server's root finds it next to `<root>/oauth/token`.
 */
export function logoutPrefix(oauthPath: string): string {
  return oauthPath.slice(0, oauthPath.lastIndexOf('/'));
}

interface Refusal {
  error: string;
  description: string;
}

function sendSignedOut(reply: FastifyReply, refusal?: Refusal, status = refusal ? 400 : 200) {
  return reply.status(status).headers(PAGE_HEADERS).send(signedOutPage(refusal));
}

/**
 * `GET /logout`: where a console sends its user once it has revoked its tokens. The sign-in keeps
 * no session of its own to end, so it says the user is signed out; with `client_id` and
 * `redirect_uri` it sends the browser back there instead, to the address (scheme, host and port) of
 * one of that client's redirect URIs only: it is no open redirect. A refusal is a 400 page saying
 * why, and sends the browser nowhere.
 */
export const logoutRoutes: FastifyPluginAsync = async (app) => {
  const ctx: Context = app.ctx;

  app.get('/logout', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Form;
    const repeated = repeatedParameter(query);
    if (repeated) {
      return sendSignedOut(reply, { error: 'invalid_request', description: `The parameter ${repeated} is given more than once` });
    }
    const target = textOf(query.redirect_uri);
    if (target === undefined) return sendSignedOut(reply);
    const clientId = textOf(query.client_id);
    if (!clientId) {
      return sendSignedOut(reply, {
        error: 'invalid_request',
        description: 'Missing parameter: `client_id`: a sign-out goes back only to an address of a known client',
      });
    }
    const client = await activeClient(ctx, clientId);
    if (!client) return sendSignedOut(reply, { error: 'invalid_client', description: 'Invalid client: client is invalid' });
    const url = URL.parse(target);
    const own = ownBaseUrls(ctx.config, listeningPort(app.server, ctx.config.port));
    if (!url || !atOriginOf(clientRedirectUris(client, own), url)) {
      return sendSignedOut(reply, {
        error: 'invalid_request',
        description: 'Invalid request: `redirect_uri` is not at the address of a redirect URI of the client',
      });
    }
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  });

  // What the rules of every request refuse (the NUL character) is said on the page too.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refused = toApiError(error);
    if (refused.status >= 500) {
      request.log.error({ err: error }, 'sign-out failed');
      return sendSignedOut(reply, { error: 'server_error', description: 'The server could not answer' }, 500);
    }
    return sendSignedOut(reply, { error: 'invalid_request', description: refused.message });
  });
};
