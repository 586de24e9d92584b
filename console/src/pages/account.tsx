import { useState } from 'react';
import { api } from '../api.ts';
import { useLoad, usePaged } from '../hooks.ts';
import { Field, FormErrors, LoadError, Pager, Table, useAction, useSubmit, when } from '../ui.tsx';

interface User {
  username: string;
  email: string;
  restricted: boolean;
}
interface Token {
  id: number;
  label: string;
  scopes: string;
  created: string;
  expiry: string | null;
  token: string;
}
interface Grants {
  global: Record<string, unknown>;
  [kind: string]: unknown;
}

function GrantsOf({ username }: { username: string }) {
  const grants = useLoad(() => api.get<Grants>(`/account/users/${encodeURIComponent(username)}/grants`), [username]);
  if (grants.error) return <LoadError error={grants.error} />;
  if (!grants.data) return <p className="muted">Loading…</p>;
  const global = Object.entries(grants.data.global)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
  const entities = Object.entries(grants.data)
    .filter(([k]) => k !== 'global')
    .flatMap(([kind, list]) =>
      (list as { id: number; label: string; permissions: string | null }[])
        .filter((g) => g.permissions)
        .map((g) => `${kind} ${g.label}: ${g.permissions}`),
    );
  return (
    <div className="grants">
      <p>
        <strong>Global:</strong> {global}
      </p>
      <p>
        <strong>Entities:</strong> {entities.join('; ') || 'none'}
      </p>
    </div>
  );
}

export function AccountPage() {
  const users = usePaged<User & { id?: number }>('/account/users');
  const tokens = usePaged<Token>('/profile/tokens');
  const [shown, setShown] = useState<string | null>(null);
  const [userForm, setUserForm] = useState({ username: '', email: '', restricted: false });
  const [tokenForm, setTokenForm] = useState({ label: '', scopes: '*' });
  const [newToken, setNewToken] = useState('');
  const addUser = useSubmit(async () => {
    await api.post('/account/users', userForm);
    setUserForm({ username: '', email: '', restricted: false });
    users.reload();
  });
  const addToken = useSubmit(async () => {
    const created = await api.post<Token>('/profile/tokens', tokenForm);
    setNewToken(created.token);
    tokens.reload();
  });
  const revoke = useAction(async (id: number) => {
    await api.del(`/profile/tokens/${id}`);
    tokens.reload();
  });
  return (
    <section>
      <h1>Account</h1>
      <h2>Users</h2>
      <LoadError error={users.error} />
      <Table
        label="Users"
        rows={users.data?.data}
        rowKey={(u) => u.username}
        empty="No users."
        columns={[
          { title: 'Username', cell: (u) => u.username },
          { title: 'Email', cell: (u) => u.email },
          { title: 'Restricted', cell: (u) => (u.restricted ? 'yes' : 'no') },
          {
            title: 'Grants',
            cell: (u) =>
              u.restricted ? (
                <button type="button" className="small" onClick={() => setShown(shown === u.username ? null : u.username)}>
                  {shown === u.username ? 'Hide grants' : 'Show grants'}
                </button>
              ) : (
                'everything'
              ),
          },
        ]}
      />
      <Pager page={users.data} setPage={users.setPage} />
      {shown && <GrantsOf username={shown} />}
      <h3>Add a user</h3>
      <form onSubmit={addUser.onSubmit} className="grid" noValidate aria-label="Add a user">
        <Field label="Username" name="username" error={addUser.error}>
          {(p) => (
            <input {...p} value={userForm.username} onChange={(e) => setUserForm({ ...userForm, username: e.target.value })} />
          )}
        </Field>
        <Field label="Email" name="email" error={addUser.error}>
          {(p) => (
            <input
              {...p}
              type="email"
              value={userForm.email}
              onChange={(e) => setUserForm({ ...userForm, email: e.target.value })}
            />
          )}
        </Field>
        <label className="check">
          <input
            type="checkbox"
            checked={userForm.restricted}
            onChange={(e) => setUserForm({ ...userForm, restricted: e.target.checked })}
          />{' '}
          Restricted
        </label>
        <button type="submit" disabled={addUser.busy}>
          Add user
        </button>
      </form>
      <FormErrors error={addUser.error} fields={['username', 'email']} />
      <h2>Your personal access tokens</h2>
      <LoadError error={tokens.error} />
      <Table
        label="Tokens"
        rows={tokens.data?.data}
        empty="No tokens."
        columns={[
          { title: 'Label', cell: (t) => t.label },
          { title: 'Scopes', cell: (t) => t.scopes },
          { title: 'Created', cell: (t) => when(t.created) },
          { title: 'Expires', cell: (t) => when(t.expiry) },
          {
            title: '',
            cell: (t) => (
              <button
                type="button"
                className="small danger"
                onClick={() => revoke.run(t.id)}
                aria-label={`Revoke token ${t.label}`}
              >
                Revoke
              </button>
            ),
          },
        ]}
      />
      <Pager page={tokens.data} setPage={tokens.setPage} />
      <FormErrors error={revoke.error} />
      <h3>New token</h3>
      <form onSubmit={addToken.onSubmit} className="grid" noValidate aria-label="New token">
        <Field label="Label" name="label" error={addToken.error}>
          {(p) => (
            <input {...p} value={tokenForm.label} onChange={(e) => setTokenForm({ ...tokenForm, label: e.target.value })} />
          )}
        </Field>
        <Field label="Scopes" name="scopes" error={addToken.error} hint="* or nodes:read_write domains:read_only …">
          {(p) => (
            <input {...p} value={tokenForm.scopes} onChange={(e) => setTokenForm({ ...tokenForm, scopes: e.target.value })} />
          )}
        </Field>
        <button type="submit" disabled={addToken.busy}>
          Create token
        </button>
      </form>
      {newToken && (
        <p role="status">
          The new token, shown only now: <code className="mono">{newToken}</code>
        </p>
      )}
      <FormErrors error={addToken.error} fields={['label', 'scopes']} />
    </section>
  );
}
