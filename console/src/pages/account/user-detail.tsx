import { useEffect, useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { deleteAndLeave, useEvents, useLoad } from '../../hooks.ts';
import { go } from '../../router.ts';
import { Field, FormErrors, Show, useAction, useSubmit } from '../../ui.tsx';
import { GrantsEditor } from './grants.tsx';
import { checkPassword } from './password.ts';
import { type User, userApi, userPath } from './user-types.ts';

/** `self`: the signed-in user's own page, where restricting itself is not offered (the API refuses it). */
function EditUserForm({ user, self, onSaved }: { user: User; self: boolean; onSaved: (user: User) => void }) {
  const [form, setForm] = useState({ username: user.username, email: user.email, restricted: user.restricted });
  const stored = JSON.stringify([user.username, user.email, user.restricted]);
  // What another tab or user saved shows here too; a re-read of the same user keeps what is being typed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the user's text stands for the user
  useEffect(() => setForm({ username: user.username, email: user.email, restricted: user.restricted }), [stored]);
  const turning = form.restricted !== user.restricted;
  const save = useAction(
    async () => {
      const saved = await api.put<User>(userApi(user.username), form);
      onSaved(saved);
    },
    {
      done: () => `User ${form.username} saved`,
      // Either way round the user's grants start over: say so before it happens.
      confirm: () =>
        !turning
          ? null
          : form.restricted
            ? {
                title: `Restrict user ${user.username}?`,
                body: `${user.username} loses access to everything at once, until you grant it what it may use.`,
                action: 'Restrict',
                danger: true,
              }
            : {
                title: `Give user ${user.username} full access?`,
                body: `${user.username} may then do everything in the account, users and grants included; its grants are dropped.`,
                action: 'Give full access',
                danger: true,
              },
    },
  );
  return (
    <>
      <form
        className="grid"
        noValidate
        aria-label="Edit the user"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <Field label="Username" name="username" error={save.error}>
          {(p) => <input {...p} value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} />}
        </Field>
        <Field label="Email" name="email" error={save.error}>
          {(p) => <input {...p} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />}
        </Field>
        {!self && (
          <label className="check">
            <input
              type="checkbox"
              name="restricted"
              checked={form.restricted}
              onChange={(e) => setForm({ ...form, restricted: e.target.checked })}
            />
            Restricted
          </label>
        )}
        <button type="submit" disabled={save.busy}>
          Save
        </button>
      </form>
      <FormErrors error={save.error} fields={['username', 'email', 'restricted']} />
    </>
  );
}

function PasswordForm({ username }: { username: string }) {
  const [password, setPassword] = useState('');
  const set = useSubmit(
    async () => {
      checkPassword(password);
      await api.post(`${userApi(username)}/password`, { password });
      setPassword('');
    },
    { done: `Password of ${username} set: it signs in with the new one` },
  );
  return (
    <>
      <form onSubmit={set.onSubmit} className="inline" noValidate aria-label="Set a password">
        <Field label="New password" name="password" error={set.error} hint="8 to 128 characters">
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={set.busy}>
          Set password
        </button>
      </form>
      <FormErrors error={set.error} fields={['password']} />
    </>
  );
}

function UserFacts({ user }: { user: User }) {
  return (
    <dl className="facts">
      <dt>Email</dt>
      <dd>{user.email}</dd>
      <dt>Access</dt>
      <dd>{user.restricted ? 'Restricted: only what it is granted below' : 'Full access: everything in the account'}</dd>
      <dt>SSH keys</dt>
      <dd>{user.ssh_keys.length > 0 ? user.ssh_keys.join(', ') : 'none'}</dd>
    </dl>
  );
}

export function UserDetail({ username }: { username: string }) {
  const access = useAccess();
  const user = useLoad(() => api.get<User>(userApi(username)), [username]);
  useEvents((events) => {
    if (events.some((e) => e.action === 'user_update' && e.entity?.label === username)) user.reload();
  });
  const writes = access.canAccount('read_write');
  const remove = useAction(
    async () => {
      await deleteAndLeave(() => api.del(userApi(username)), '/account/users');
    },
    {
      done: `User ${username} deleted`,
      confirm: {
        title: `Delete user ${username}?`,
        body: `${username} can no longer sign in; its API tokens, SSH keys and grants are deleted with it. What it made stays in the account.`,
        action: 'Delete',
        danger: true,
      },
    },
  );
  return (
    <section>
      <p className="crumbs">
        <a href="#/account/users">Users</a> /
      </p>
      <Show loaded={user}>
        {(u) => (
          <>
            <header className="page-head">
              <h1>{u.username}</h1>
              {writes && username !== access.username && (
                <button type="button" className="danger" onClick={() => void remove.run()} disabled={remove.busy}>
                  Delete user
                </button>
              )}
            </header>
            <FormErrors error={remove.error} />
            <UserFacts user={u} />
            {writes && (
              <>
                <h2>Edit</h2>
                <EditUserForm
                  user={u}
                  self={u.username === access.username}
                  onSaved={(saved) => (saved.username === username ? user.reload() : go(userPath(saved.username)))}
                />
                <h2>Set a password</h2>
                <p className="muted">The user signs in to this console, and to apps it allows, with it.</p>
                <PasswordForm username={u.username} />
              </>
            )}
            {writes && u.restricted && <GrantsEditor username={u.username} />}
          </>
        )}
      </Show>
    </section>
  );
}
