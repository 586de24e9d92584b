import { setTimeout as sleep } from 'node:timers/promises';
import formbody from '@fastify/formbody';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { addFormDataParser, refuseOtherBodies } from '../../http/body-parsers.ts';
import { toApiError } from '../../http/error-handler.ts';
import { listeningPort, ownBaseUrls } from '../../http/public-url.ts';
import { recordSignIn, userWithPassword } from '../account/user.service.ts';
import { parseScopes } from '../profile/scopes.ts';
import { AUTHORIZE_PARAMS, type AuthorizeParams, errorPage, PAGE_HEADERS, signInPage } from './login-page.ts';
import {
  ACCESS_TOKEN_LIFETIME_S,
  activeClient,
  CODE_LIFETIME_S,
  REFRESH_TOKEN_LIFETIME_S,
  revokeGrantOfToken,
} from './oauth-grant.service.ts';
import { type ModelOptions, type OAuthUser, oauthModel } from './oauth-model.ts';
import { type Form, repeatedParameter, textOf } from './oauth-params.ts';
import { clientRedirectUris, errorRedirect } from './redirect-uris.ts';
import { SignInAttempts } from './sign-in-attempts.ts';

const { OAuthError, InvalidClientError, InvalidRequestError, ServerError } = OAuth2Server;

/** How the page and its POST end, besides the library's redirect. */
class ShowSignIn extends Error {}
class WrongPassword extends Error {}

function paramsOf(source: Form): AuthorizeParams {
  const params: AuthorizeParams = {};
  for (const key of AUTHORIZE_PARAMS) {
    const value = textOf(source[key]);
    if (value !== undefined) params[key] = value;
  }
  return params;
}

/** The request as the library takes it; `headers` replace the request's own. */
function libraryRequest(request: FastifyRequest, body: Form, headers: Record<string, string> = {}): OAuth2Server.Request {
  return new OAuth2Server.Request({
    method: request.method,
    query: { ...(request.query as Record<string, string>) },
    headers: {
      ...Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, [v ?? ''].flat().join(', ')])),
      ...headers,
    },
    body,
  });
}

const FORM = 'application/x-www-form-urlencoded';
/** The bodies the token endpoint takes: a form, as RFC 6749 says, or multipart, as a browser's FormData posts one. */
const TOKEN_BODIES = [FORM, 'multipart/form-data'];

/** A request's media type, without its parameters (`; charset`, `; boundary`). */
function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function sendPage(reply: FastifyReply, status: number, html: string) {
  return reply.status(status).headers(PAGE_HEADERS).send(html);
}

/** The library's answer: a redirect back to the client, or a body (the token endpoint). */
function sendLibraryResponse(reply: FastifyReply, response: OAuth2Server.Response) {
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
  return reply.status(response.status ?? 200).send(response.body);
}

/**
 * The OAuth 2 authorization server (RFC 6749 with PKCE, RFC 7636), through @node-oauth/oauth2-server:
 * `GET authorize` shows the sign-in page for a known client and redirect URI; `POST authorize` checks
 * the password (wrong ones limited per user and address and per address: sign-in-attempts.ts) and sends the user back to the
 * client with a code, or with `access_denied`; `POST token` exchanges a code or a refresh token. A
 * request that names an unknown client or a redirect URI it does not own is refused on a page here,
 * never redirected.
 */
export const oauthServerRoutes: FastifyPluginAsync = async (app) => {
  const ctx: Context = app.ctx;
  // What the framework or the rules of every request refuse (a body too large or nested too deep, a content
  // type it cannot read, the NUL character) answers as RFC 6749 5.2 says; set first, so the token's scope has it.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refused = toApiError(error);
    const status = refused.status < 500 ? 400 : 500;
    if (status === 500) request.log.error({ err: error }, 'sign-in request failed');
    const description = status === 500 ? 'The server could not answer' : refused.message;
    if (request.url.split('?')[0]?.endsWith('/authorize'))
      return sendPage(reply, status, errorPage('invalid_request', description));
    return reply
      .status(status)
      .header('cache-control', 'no-store')
      .send({ error: status === 500 ? 'server_error' : 'invalid_request', error_description: description });
  });
  await app.register(formbody);
  // A form is what these endpoints take (JSON too, as before): a body of another type is told so.
  app.removeContentTypeParser('*');
  refuseOtherBodies(app, FORM);
  const attempts = new SignInAttempts(ctx.clock);

  const ownUrls = () => ownBaseUrls(ctx.config, listeningPort(app.server, ctx.config.port));
  const server = (endpoint: ModelOptions['endpoint'], redirectUriOmitted = false) =>
    new OAuth2Server({
      model: oauthModel(ctx, {
        endpoint,
        redirectUris: (client) => clientRedirectUris(client, ownUrls()),
        redirectUriOmitted,
      }),
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S,
      refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_S,
      authorizationCodeLifetime: CODE_LIFETIME_S,
      allowEmptyState: true,
      // A public client refreshes without a secret; the model still asks a confidential client for its own.
      requireClientAuthentication: { refresh_token: false },
    });

  /**
   * Runs the library's authorization with `authenticate` standing for the user's sign-in;
   * `authorized` runs once the client has been given its code.
   */
  async function authorize(
    request: FastifyRequest,
    reply: FastifyReply,
    body: Form,
    authenticate: () => Promise<OAuthUser>,
    authorized?: () => Promise<void>,
  ): Promise<FastifyReply> {
    const source = request.method === 'GET' ? (request.query as Form) : body;
    const params = paramsOf(source);
    const repeated = repeatedParameter(request.query as Form, body);
    if (repeated) return sendPage(reply, 400, errorPage('invalid_request', `The parameter ${repeated} is given more than once`));
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await server('authorize').authorize(libraryRequest(request, body), response, {
        authenticateHandler: { handle: authenticate },
      });
      await authorized?.();
      return sendLibraryResponse(reply, response);
    } catch (error) {
      if (error instanceof ShowSignIn || error instanceof WrongPassword) {
        const client = await activeClient(ctx, params.client_id ?? '');
        return sendPage(
          reply,
          error instanceof WrongPassword ? 401 : 200,
          signInPage({
            clientLabel: client?.label ?? 'an application',
            scopes: requestedScopes(params.scope),
            params,
            action: `${ctx.config.oauthPath}/authorize`,
            ...(error instanceof WrongPassword
              ? { username: textOf(body.username) ?? '', error: 'Wrong username or password' }
              : {}),
          }),
        );
      }
      const oauthError = error instanceof OAuthError ? error : new ServerError(String(error));
      // Redirected to the client when the library could (the client and its redirect URI were good).
      const location = response.status === 302 ? response.headers?.location : undefined;
      if (location) return reply.redirect(errorRedirect(location, oauthError, params.state), 302);
      if (oauthError.code >= 500) request.log.error({ err: error }, 'authorization failed');
      return sendPage(reply, oauthError.code >= 500 ? 500 : 400, errorPage(oauthError.name, oauthError.message));
    }
  }

  app.get('/authorize', { schema: { hide: true } }, async (request, reply) =>
    authorize(request, reply, {}, async () => {
      throw new ShowSignIn();
    }),
  );

  app.post('/authorize', { schema: { hide: true } }, async (request, reply) => {
    // Against cross-site request forgery: a browser names the page a form was sent from, which must be ours.
    const origin = request.headers.origin;
    if (origin !== undefined && !ownUrls().some((url) => new URL(url).origin === origin)) {
      return sendPage(reply, 403, errorPage('invalid_request', "The sign-in form may be sent only from this server's own page"));
    }
    const form: Form = { ...((request.body as Form | undefined) ?? {}) };
    if (form.decision === 'deny') {
      // The library refuses (access_denied, back to the client) before it looks at who the user is.
      return authorize(request, reply, { ...form, allowed: 'false' }, async () => ({ id: 0, accountId: 0, username: '' }));
    }
    const username = textOf(form.username) ?? '';
    const verdict = attempts.verdict(username, request.ip);
    if (verdict.kind === 'refused') {
      reply.header('retry-after', String(verdict.retryAfterS));
      return sendPage(
        reply,
        429,
        errorPage('too_many_attempts', `Too many wrong passwords from here; try again in ${verdict.retryAfterS} s`),
      );
    }
    let signedIn: OAuthUser | undefined;
    return authorize(
      request,
      reply,
      form,
      async () => {
        if (verdict.delayMs > 0) await sleep(verdict.delayMs);
        const user = await userWithPassword(ctx, username, textOf(form.password) ?? '');
        if (!user) {
          attempts.failed(username, request.ip);
          throw new WrongPassword();
        }
        attempts.succeeded(username, request.ip);
        signedIn = { id: user.id, accountId: user.account_id, username: user.username };
        return signedIn;
      },
      // The user's last_login: the right password, and the client got its code.
      async () => {
        if (signedIn) await recordSignIn(ctx, signedIn.accountId, signedIn.id);
      },
    );
  });

  // The token endpoint alone takes multipart too: a browser app may post its FormData as it is.
  await app.register(async (tokenScope) => {
    tokenScope.removeContentTypeParser('*');
    refuseOtherBodies(tokenScope, TOKEN_BODIES.join(' or '));
    addFormDataParser(tokenScope);
    tokenScope.post('/token', { schema: { hide: true } }, token);
  });

  async function token(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const body: Form = { ...((request.body as Form | undefined) ?? {}) };
    const response = new OAuth2Server.Response({ headers: {} });
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    if (!TOKEN_BODIES.includes(mediaType(request))) {
      return tokenError(reply, new InvalidRequestError(`Invalid request: content must be ${TOKEN_BODIES.join(' or ')}`));
    }
    const repeated = repeatedParameter(body);
    if (repeated) return tokenError(reply, new InvalidRequestError(`Invalid request: \`${repeated}\` is given more than once`));
    try {
      // Both bodies read alike: the library, which checks for a form, is told it has one.
      const form = libraryRequest(request, body, { 'content-type': FORM });
      const omitted = body.redirect_uri === undefined && (request.query as Form).redirect_uri === undefined;
      await server('token', omitted).token(form, response);
      return sendLibraryResponse(reply, response);
    } catch (error) {
      const oauthError = error instanceof OAuthError ? error : new ServerError(String(error));
      if (oauthError.code >= 500) request.log.error({ err: error }, 'token request failed');
      const challenge = response.headers?.['www-authenticate'];
      if (challenge) reply.header('www-authenticate', challenge);
      return tokenError(reply, oauthError);
    }
  }

  // RFC 7009: the client authenticates as at the token endpoint (a public client by its id alone), and
  // any token it sends is answered 200, revoked or not.
  app.post('/revoke', { schema: { hide: true } }, async (request, reply) => {
    const body: Form = { ...((request.body as Form | undefined) ?? {}) };
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const repeated = repeatedParameter(body);
    if (repeated) return tokenError(reply, new InvalidRequestError(`Invalid request: \`${repeated}\` is given more than once`));
    const credentials = clientCredentials(request, body);
    const client =
      credentials && (await oauthModel(ctx, { endpoint: 'token' }).getClient(credentials.id, credentials.secret ?? ''));
    if (!client) {
      // RFC 6749 5.2: a client that tried HTTP authentication is told 401 with a challenge.
      const basic = Boolean(request.headers.authorization);
      if (basic) reply.header('www-authenticate', 'Basic realm="Service"');
      return tokenError(reply, new InvalidClientError('Invalid client: client is invalid', basic ? { code: 401 } : {}));
    }
    const token = textOf(body.token);
    if (!token) return tokenError(reply, new InvalidRequestError('Missing parameter: `token`'));
    await revokeGrantOfToken(ctx, credentials.id, token, textOf(body.token_type_hint));
    return reply.status(200).send();
  });
};

/** The client's id and secret: HTTP Basic (RFC 6749 2.3.1, each part form-encoded) or the body's fields. */
function clientCredentials(request: FastifyRequest, body: Form): { id: string; secret: string | undefined } | null {
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (basic?.[1]) {
    const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':', 2);
    if (id === undefined || secret === undefined) return null;
    try {
      return { id: decodeURIComponent(id.replace(/\+/g, ' ')), secret: decodeURIComponent(secret.replace(/\+/g, ' ')) };
    } catch {
      return null;
    }
  }
  const id = textOf(body.client_id);
  return id ? { id, secret: textOf(body.client_secret) } : null;
}

function tokenError(reply: FastifyReply, error: InstanceType<typeof OAuthError>) {
  return reply.status(error.code).send({ error: error.name, error_description: error.message });
}

/** The scope text a sign-in page shows, or null when it does not parse (the refusal comes back to the client). */
function requestedScopes(scope: string | undefined): string | null {
  try {
    return parseScopes(scope ?? '*').canonical;
  } catch {
    return null;
  }
}
