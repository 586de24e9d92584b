import type { ScopeSet } from '../profile/scopes.ts';

/** Who a request acts as, once its token has been checked. */
export interface Principal {
  accountId: number;
  userId: number;
  username: string;
  restricted: boolean;
  scopes: ScopeSet;
  tokenId: number;
}

/** The tenant boundary every repository query is cut to. */
export interface AccountScope {
  accountId: number;
  /** Set for restricted users: their entity grants further cut what they see. */
  restrictedUserId: number | null;
}

export function scopeOf(p: Principal): AccountScope {
  return { accountId: p.accountId, restrictedUserId: p.restricted ? p.userId : null };
}

/** Who an event names as its author: a user, or nobody when the operator acts (CLI). */
export interface Actor {
  accountId: number;
  userId: number | null;
  username: string | null;
}

export function actorOf(p: Principal): Actor {
  return { accountId: p.accountId, userId: p.userId, username: p.username };
}

export function operatorIn(accountId: number): Actor {
  return { accountId, userId: null, username: null };
}
