import { useState } from 'react';
import { api } from '../../api.ts';
import { usePaged } from '../../hooks.ts';
import { Field, FormErrors, Pager, Table, useAction, useSubmit, when } from '../../ui.tsx';

export interface Credential {
  id: number;
  label: string;
  last_decrypted: string | null;
}

function NewCredential({ onDone }: { onDone: () => void }) {
  const [form, setForm] = useState({ label: '', username: '', password: '' });
  const save = useSubmit(
    async () => {
      await api.post('/managed/credentials', {
        label: form.label,
        password: form.password,
        ...(form.username ? { username: form.username } : {}),
      });
      onDone();
    },
    { done: () => `Credential ${form.label} stored` },
  );
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label="Store a credential">
      <h3>Store a credential</h3>
      <div className="grid">
        <Field label="Label" name="label" error={save.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <Field label="Username (optional)" name="username" error={save.error}>
          {(p) => (
            <input
              {...p}
              autoComplete="off"
              value={form.username}
              onChange={(e) => setForm({ ...form, username: e.target.value })}
            />
          )}
        </Field>
        <Field label="Password" name="password" error={save.error}>
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
      </div>
      <p className="note">The username and password are kept encrypted; nobody reads them back here.</p>
      <FormErrors error={save.error} fields={['label', 'username', 'password']} />
      <div className="panel-buttons">
        <button type="submit" disabled={save.busy}>
          Store credential
        </button>
      </div>
    </form>
  );
}

/** A credential's label, and its login (a new password, and a new username when given). */
function EditCredential({ credential, onDone }: { credential: Credential; onDone: () => void }) {
  const [form, setForm] = useState({ label: credential.label, username: '', password: '' });
  const save = useSubmit(
    async () => {
      if (form.label !== credential.label) await api.put(`/managed/credentials/${credential.id}`, { label: form.label });
      if (form.password || form.username) {
        await api.post(`/managed/credentials/${credential.id}/update`, {
          password: form.password,
          ...(form.username ? { username: form.username } : {}),
        });
      }
      onDone();
    },
    { done: () => `Credential ${form.label} updated` },
  );
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label={`Edit credential ${credential.label}`}>
      <h3>Edit credential {credential.label}</h3>
      <div className="grid">
        <Field label="Label" name="label" error={save.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <Field label="New username" name="username" error={save.error} hint="Left empty, the username stays">
          {(p) => (
            <input
              {...p}
              autoComplete="off"
              value={form.username}
              onChange={(e) => setForm({ ...form, username: e.target.value })}
            />
          )}
        </Field>
        <Field label="New password" name="password" error={save.error} hint="Needed to change the login">
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
      </div>
      <FormErrors error={save.error} fields={['label', 'username', 'password']} />
      <div className="panel-buttons">
        <button type="submit" disabled={save.busy}>
          Save credential
        </button>
        <button type="button" className="small" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Logins the support staff may use on the account's services, kept encrypted. */
export function ManagedCredentials({ canWrite, onChange }: { canWrite: boolean; onChange: () => void }) {
  const list = usePaged<Credential>('/managed/credentials');
  const [editing, setEditing] = useState<Credential | null>(null);
  const [fresh, setFresh] = useState(0);
  const changed = () => {
    list.reload();
    onChange();
  };
  const remove = useAction(
    async (c: Credential) => {
      await api.del(`/managed/credentials/${c.id}`);
      if (editing?.id === c.id) setEditing(null);
      changed();
    },
    {
      done: (c) => `Credential ${c.label} deleted`,
      confirm: (c) => ({
        title: `Delete credential ${c.label}?`,
        body: 'The stored login is destroyed; services that use it lose it.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  return (
    <>
      <h2>Credentials</h2>
      <Table
        label="Credentials"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        sort={list.sort}
        empty="No credentials stored."
        columns={[
          { orderBy: 'label', title: 'Label', cell: (c) => c.label },
          { title: 'Last read by staff', cell: (c) => (c.last_decrypted ? when(c.last_decrypted) : 'never') },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (c: Credential) => (
                    <div className="row-actions">
                      <button
                        type="button"
                        className="small"
                        onClick={() => setEditing(c)}
                        aria-label={`Edit credential ${c.label}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        onClick={() => void remove.run(c)}
                        aria-label={`Delete credential ${c.label}`}
                      >
                        Delete
                      </button>
                    </div>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
      <FormErrors error={remove.error} />
      {canWrite && editing && (
        <EditCredential
          key={editing.id}
          credential={editing}
          onDone={() => {
            setEditing(null);
            changed();
          }}
        />
      )}
      {canWrite && !editing && (
        <NewCredential
          key={`new-${fresh}`}
          onDone={() => {
            setFresh((n) => n + 1);
            changed();
          }}
        />
      )}
    </>
  );
}
