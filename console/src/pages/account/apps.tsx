import { useState } from 'react';
import { api } from '../../api.ts';
import { usePaged } from '../../hooks.ts';
import { FormErrors, Pager, SearchBox, Table, useAction, when } from '../../ui.tsx';
import { scopesWords } from './scopes.ts';

interface AuthorizedApp {
  id: number;
  label: string;
  scopes: string;
  created: string;
  expiry: string | null;
  website: string;
}

/** The OAuth apps the user let into its account (this console among them), each revoked here. */
export function AuthorizedAppsPage() {
  const [q, setQ] = useState('');
  const apps = usePaged<AuthorizedApp>('/profile/apps', q ? { label: { '+contains': q } } : undefined, {
    by: 'created',
    order: 'desc',
  });
  const revoke = useAction(
    async (a: AuthorizedApp) => {
      await api.del(`/profile/apps/${a.id}`);
      apps.reload();
    },
    {
      done: (a) => `Access of ${a.label} revoked`,
      confirm: (a) => ({
        title: `Revoke app ${a.label}?`,
        body: `${a.label} can no longer act for you: its tokens stop working at once. If it is a sign-in to this console, that sign-in ends.`,
        action: 'Revoke',
        danger: true,
      }),
    },
  );
  return (
    <section>
      <h1>Authorized apps</h1>
      <p className="muted">Apps you allowed at the sign-in page, each with the scopes you allowed it.</p>
      <SearchBox label="Search by label" value={q} onChange={setQ} />
      <Table
        label="Authorized apps"
        rows={apps.data?.data}
        empty={q ? 'No app matches.' : 'No apps.'}
        error={apps.error}
        retry={apps.reload}
        sort={apps.sort}
        columns={[
          { title: 'App', orderBy: 'label', cell: (a) => a.label },
          { title: 'Scopes', cell: (a) => scopesWords(a.scopes) },
          { title: 'Allowed', orderBy: 'created', cell: (a) => when(a.created) },
          { title: 'Expires', orderBy: 'expiry', cell: (a) => (a.expiry ? when(a.expiry) : 'never') },
          { title: 'Website', cell: (a) => a.website || '—' },
          {
            title: '',
            cell: (a) => (
              <button
                type="button"
                className="small danger"
                onClick={() => void revoke.run(a)}
                aria-label={`Revoke app ${a.label}`}
              >
                Revoke
              </button>
            ),
          },
        ]}
      />
      <Pager page={apps.data} setPage={apps.setPage} />
      <FormErrors error={revoke.error} />
    </section>
  );
}
