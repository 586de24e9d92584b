import { useState } from 'react';
import { api } from '../../api.ts';
import { useEvents, usePaged } from '../../hooks.ts';
import { Field, FormErrors, Pager, SearchBox, Table, useAction, useSubmit, when } from '../../ui.tsx';
import { RenameInPlace } from './rename.tsx';

interface SshKey {
  id: number;
  label: string;
  ssh_key: string;
  created: string;
}

/** A public key as a person tells keys apart: its type and the end of its data, and its comment. */
function keyText(key: string): string {
  const [type = '', data = '', ...comment] = key.trim().split(/\s+/);
  return `${type} …${data.slice(-12)}${comment.length ? ` ${comment.join(' ')}` : ''}`;
}

function NewKeyForm({ onAdded }: { onAdded: () => void }) {
  const [form, setForm] = useState({ label: '', ssh_key: '' });
  const add = useSubmit(
    async () => {
      await api.post('/profile/sshkeys', form);
      setForm({ label: '', ssh_key: '' });
      onAdded();
    },
    { done: () => `SSH key ${form.label} added` },
  );
  return (
    <>
      <form onSubmit={add.onSubmit} className="stack" noValidate aria-label="Add an SSH key">
        <Field label="Label" name="label" error={add.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <Field label="Public key" name="ssh_key" error={add.error} hint="One line, as in ~/.ssh/id_ed25519.pub">
          {(p) => (
            <textarea
              {...p}
              rows={3}
              className="mono"
              spellCheck={false}
              value={form.ssh_key}
              onChange={(e) => setForm({ ...form, ssh_key: e.target.value })}
            />
          )}
        </Field>
        <div>
          <button type="submit" disabled={add.busy}>
            Add key
          </button>
        </div>
      </form>
      <FormErrors error={add.error} fields={['label', 'ssh_key']} />
    </>
  );
}

/** The user's own SSH public keys, put on the nodes it makes when it asks for them. */
export function SshKeysPage() {
  const [q, setQ] = useState('');
  const keys = usePaged<SshKey>('/profile/sshkeys', q ? { label: { '+contains': q } } : undefined, { by: 'label' });
  useEvents((events) => {
    if (events.some((e) => e.action.startsWith('user_ssh_key_'))) keys.reload();
  });
  const remove = useAction(
    async (k: SshKey) => {
      await api.del(`/profile/sshkeys/${k.id}`);
      keys.reload();
    },
    {
      done: (k) => `SSH key ${k.label} deleted`,
      confirm: (k) => ({
        title: `Delete SSH key ${k.label}?`,
        body: 'New nodes no longer get it. Nodes that already have it keep it until you take it off them.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  return (
    <section>
      <h1>SSH keys</h1>
      <SearchBox label="Search by label" value={q} onChange={setQ} />
      <Table
        label="SSH keys"
        rows={keys.data?.data}
        empty={q ? 'No key matches.' : 'No SSH keys yet.'}
        error={keys.error}
        retry={keys.reload}
        sort={keys.sort}
        columns={[
          {
            title: 'Label',
            orderBy: 'label',
            cell: (k) => (
              <RenameInPlace
                label={k.label}
                what={`SSH key ${k.label}`}
                save={async (label) => {
                  await api.put(`/profile/sshkeys/${k.id}`, { label });
                  keys.reload();
                }}
              />
            ),
          },
          { title: 'Key', cell: (k) => <code className="mono key">{keyText(k.ssh_key)}</code> },
          { title: 'Added', cell: (k) => when(k.created) },
          {
            title: '',
            cell: (k) => (
              <button
                type="button"
                className="small danger"
                onClick={() => void remove.run(k)}
                aria-label={`Delete SSH key ${k.label}`}
              >
                Delete
              </button>
            ),
          },
        ]}
      />
      <Pager page={keys.data} setPage={keys.setPage} />
      <FormErrors error={remove.error} />
      <h2>Add an SSH key</h2>
      <NewKeyForm onAdded={keys.reload} />
    </section>
  );
}
