import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { useEvents, usePaged } from '../../hooks.ts';
import { go } from '../../router.ts';
import { errorText, Field, FormErrors, Pager, SearchBox, Table, useSubmit } from '../../ui.tsx';
import { checkPassword } from './password.ts';
import { type User, userApi, userPath } from './user-types.ts';

const EMPTY = { username: '', email: '', password: '', restricted: true };

/** A new user with the password it signs in with: made, then given the password. */
function NewUserForm({ onMade }: { onMade: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const create = useSubmit(
    async () => {
      checkPassword(form.password);
      const user = await api.post<User>('/account/users', {
        username: form.username,
        email: form.email,
        restricted: form.restricted,
      });
      onMade();
      try {
        await api.post(`${userApi(user.username)}/password`, { password: form.password });
      } catch (err) {
        go(userPath(user.username));
        throw new Error(`User ${user.username} was added, but its password was not set (${errorText(err)}): set one on its page`);
      }
      setForm(EMPTY);
      go(userPath(user.username));
    },
    { done: () => `User ${form.username} added: it signs in with the password you gave` },
  );
  return (
    <>
      <form onSubmit={create.onSubmit} className="grid" noValidate aria-label="Add a user">
        <Field label="Username" name="username" error={create.error}>
          {(p) => (
            <input
              {...p}
              autoComplete="off"
              value={form.username}
              onChange={(e) => setForm({ ...form, username: e.target.value })}
            />
          )}
        </Field>
        <Field label="Email" name="email" error={create.error}>
          {(p) => <input {...p} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />}
        </Field>
        <Field label="Password" name="password" error={create.error} hint="8 to 128 characters">
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              value={form.password}
              onChange={(e) => setForm({ ...form, password: e.target.value })}
            />
          )}
        </Field>
        <label className="check">
          <input
            type="checkbox"
            name="restricted"
            checked={form.restricted}
            onChange={(e) => setForm({ ...form, restricted: e.target.checked })}
          />
          Restricted (may do only what you grant)
        </label>
        <button type="submit" disabled={create.busy}>
          Add user
        </button>
      </form>
      <FormErrors error={create.error} fields={['username', 'email', 'password']} />
    </>
  );
}

export function UsersList() {
  const access = useAccess();
  const [q, setQ] = useState('');
  const users = usePaged<User>('/account/users', q ? { username: { '+contains': q } } : undefined, { by: 'username' });
  useEvents((events) => {
    if (events.some((e) => e.action.startsWith('user_') && !e.action.startsWith('user_ssh_key'))) users.reload();
  });
  return (
    <section>
      <h1>Users</h1>
      <SearchBox label="Search by username" value={q} onChange={setQ} />
      <Table
        label="Users"
        rows={users.data?.data}
        rowKey={(u) => u.username}
        empty={q ? 'No user matches.' : 'No users.'}
        error={users.error}
        retry={users.reload}
        sort={users.sort}
        columns={[
          { title: 'Username', orderBy: 'username', cell: (u) => <a href={`#${userPath(u.username)}`}>{u.username}</a> },
          { title: 'Email', cell: (u) => u.email },
          { title: 'Access', cell: (u) => (u.restricted ? 'Restricted: what it is granted' : 'Full access') },
          { title: 'SSH keys', cell: (u) => u.ssh_keys.length },
        ]}
      />
      <Pager page={users.data} setPage={users.setPage} />
      {access.canAccount('read_write') && (
        <>
          <h2>Add a user</h2>
          <NewUserForm onMade={users.reload} />
        </>
      )}
    </section>
  );
}
