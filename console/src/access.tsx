import { createContext, type ReactNode, useContext } from 'react';
import { api } from './api.ts';
import { useLoad } from './hooks.ts';

export type Permission = 'read_only' | 'read_write';
/** The kinds of entity granted one by one, as the grants object names them. */
export type GrantKind = 'node' | 'domain' | 'image' | 'stackscript' | 'firewall' | 'nodebalancer' | 'longview' | 'volume';
export type AddFlag =
  | 'add_nodes'
  | 'add_domains'
  | 'add_images'
  | 'add_stackscripts'
  | 'add_firewalls'
  | 'add_volumes'
  | 'add_nodebalancers'
  | 'add_longview';

export interface Grants {
  global: Record<AddFlag, boolean> & { account_access: Permission | null };
  [kind: string]: unknown;
}

export interface Access {
  username: string;
  restricted: boolean;
  /** May make new entities of a kind. */
  canAdd(flag: AddFlag): boolean;
  /** May change or delete this entity. */
  canWrite(kind: GrantKind, id: number): boolean;
  /** May do account-wide work (users, managed, settings): `read_write`; or see it: `read_only`. */
  canAccount(level: Permission): boolean;
}

/** What an unrestricted user may do: everything. */
const EVERYTHING: Access = {
  username: '',
  restricted: false,
  canAdd: () => true,
  canWrite: () => true,
  canAccount: () => true,
};

/** While the profile loads nothing is offered: a control must never appear and then vanish. */
const NOTHING: Access = {
  username: '',
  restricted: true,
  canAdd: () => false,
  canWrite: () => false,
  canAccount: () => false,
};

function accessFrom(username: string, restricted: boolean, grants: Grants | null): Access {
  if (!restricted || grants === null) return { ...EVERYTHING, username, restricted };
  const entities = (kind: GrantKind) => (grants[kind] as { id: number; permissions: Permission | null }[] | undefined) ?? [];
  return {
    username,
    restricted,
    canAdd: (flag) => grants.global[flag] === true,
    canWrite: (kind, id) => entities(kind).some((e) => e.id === id && e.permissions === 'read_write'),
    canAccount: (level) =>
      grants.global.account_access === 'read_write' || (level === 'read_only' && grants.global.account_access === 'read_only'),
  };
}

const AccessContext = createContext<Access>(NOTHING);

/**
 * The signed-in user's profile and grants, read once a sign-in: pages offer only what the user may
 * do (a read-only user sees no write controls). The API still decides every request.
 */
export function AccessProvider({ children }: { children: ReactNode }) {
  const loaded = useLoad(async () => {
    const profile = await api.get<{ username: string; restricted: boolean }>('/profile');
    // 204 (no body, read as {}) for an unrestricted user.
    const grants = profile.restricted ? await api.get<Grants>('/profile/grants') : null;
    return accessFrom(profile.username, profile.restricted, grants && 'global' in grants ? grants : null);
  }, []);
  return (
    <AccessContext.Provider value={loaded.data ?? NOTHING}>
      {loaded.error && (
        <div className="error banner" role="alert">
          <p>Your profile could not be read, so nothing can be changed here yet: {loaded.error.message}</p>
          <button type="button" className="small" onClick={loaded.reload}>
            Retry
          </button>
        </div>
      )}
      {children}
    </AccessContext.Provider>
  );
}

export function useAccess(): Access {
  return useContext(AccessContext);
}
