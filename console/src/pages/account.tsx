import { useAccess } from '../access.tsx';
import { AuthorizedAppsPage } from './account/apps.tsx';
import { OAuthClientDetail, OAuthClientsList } from './account/oauth-clients.tsx';
import { SshKeysPage } from './account/ssh-keys.tsx';
import { TokensPage } from './account/tokens.tsx';
import { UserDetail } from './account/user-detail.tsx';
import { UsersList } from './account/users.tsx';
import './account/account.css';

/**
 * The account's pages: the address's part after `#/account/`, the menu's text, and who may see it:
 * users are for unrestricted users only (the API refuses them to any restricted user), OAuth clients
 * for users with account access, the rest are every user's own.
 */
const PAGES = [
  { key: 'users', title: 'Users', who: 'unrestricted' },
  { key: 'tokens', title: 'API tokens', who: 'anyone' },
  { key: 'ssh-keys', title: 'SSH keys', who: 'anyone' },
  { key: 'apps', title: 'Authorized apps', who: 'anyone' },
  { key: 'oauth-clients', title: 'OAuth clients', who: 'account' },
] as const;

type Who = (typeof PAGES)[number]['who'];

function AccountMenu({ current, sees }: { current: string; sees: (who: Who) => boolean }) {
  return (
    <nav className="account-menu" aria-label="Account">
      {PAGES.filter((p) => sees(p.who)).map((p) => (
        <a key={p.key} href={`#/account/${p.key}`} aria-current={current === p.key ? 'page' : undefined}>
          {p.title}
        </a>
      ))}
    </nav>
  );
}

/** What a user without account access sees at an account-wide page: no list it may not read. */
function NotYours({ what }: { what: string }) {
  return (
    <section>
      <h1>{what}</h1>
      <p className="muted">
        Your user has no access to the account's {what.toLowerCase()}: a user with full access can grant it.
      </p>
    </section>
  );
}

/**
 * The account section: `#/account/users`, `#/account/users/<name>`, `#/account/tokens`,
 * `#/account/ssh-keys`, `#/account/apps`, `#/account/oauth-clients`, `#/account/oauth-clients/<id>`.
 * Users and OAuth clients are the account's (read with account access); the rest are the user's own.
 */
export function AccountSection({ path }: { path: string[] }) {
  const access = useAccess();
  // The profile is still being read: neither the pages it opens nor the ones it closes are known yet.
  if (!access.username) return <p className="muted">Loading…</p>;
  const sees = (who: Who) => who === 'anyone' || (who === 'unrestricted' ? !access.restricted : access.canAccount('read_only'));
  const [page = sees('unrestricted') ? 'users' : 'tokens', id] = path;
  return (
    <>
      <AccountMenu current={page} sees={sees} />
      <AccountPage page={page} id={id} sees={sees} />
    </>
  );
}

function AccountPage({ page, id, sees }: { page: string; id: string | undefined; sees: (who: Who) => boolean }) {
  switch (page) {
    case 'users':
      if (!sees('unrestricted')) return <NotYours what="Users" />;
      return id ? <UserDetail username={id} /> : <UsersList />;
    case 'oauth-clients':
      if (!sees('account')) return <NotYours what="OAuth clients" />;
      return id ? <OAuthClientDetail id={id} /> : <OAuthClientsList />;
    case 'tokens':
      return <TokensPage />;
    case 'ssh-keys':
      return <SshKeysPage />;
    case 'apps':
      return <AuthorizedAppsPage />;
    default:
      return <p>There is no such account page. Pick one above.</p>;
  }
}
