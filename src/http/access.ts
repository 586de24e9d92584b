/**
 * What an authenticated route needs beyond a valid token. Empty here: the group that owns scopes and
 * grants fills it in by declaration merging (src/domain/account/route-access.ts), so that routes
 * declare it checked while this layer names no group.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging
export interface RouteNeeds {}

/** What a route needs, declared on every v4 route and enforced by the one auth check. */
export type Access =
  | { readonly public: true }
  | (RouteNeeds & {
      /** Anonymous requests pass (public images); a token, if sent, is still checked. */
      readonly optional?: boolean;
    });

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

export const publicAccess: Access = { public: true };
