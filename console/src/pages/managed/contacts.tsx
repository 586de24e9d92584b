import { useState } from 'react';
import { api } from '../../api.ts';
import { usePaged } from '../../hooks.ts';
import { Field, FormErrors, Pager, Table, useAction, useSubmit, when } from '../../ui.tsx';

interface Contact {
  id: number;
  name: string | null;
  email: string | null;
  phone: { primary: string | null; secondary: string | null };
  group: string | null;
  updated: string;
}

const FIELDS = ['name', 'email', 'phone.primary', 'phone.secondary', 'group'];

function ContactForm({ contact, onDone }: { contact?: Contact; onDone: () => void }) {
  const [form, setForm] = useState({
    name: contact?.name ?? '',
    email: contact?.email ?? '',
    primary: contact?.phone.primary ?? '',
    secondary: contact?.phone.secondary ?? '',
    group: contact?.group ?? '',
  });
  const save = useSubmit(
    async () => {
      const body = {
        name: form.name,
        email: form.email,
        phone: { primary: form.primary || null, secondary: form.secondary || null },
        group: form.group || null,
      };
      if (contact) await api.put(`/managed/contacts/${contact.id}`, body);
      else await api.post('/managed/contacts', body);
      onDone();
    },
    { done: () => (contact ? `Contact ${form.name} saved` : `Contact ${form.name} added`) },
  );
  const title = contact ? `Edit contact ${contact.name ?? contact.id}` : 'Add a contact';
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label={title}>
      <h3>{title}</h3>
      <div className="grid">
        <Field label="Name" name="name" error={save.error}>
          {(p) => <input {...p} value={form.name} onChange={set('name')} autoComplete="name" />}
        </Field>
        <Field label="Email" name="email" error={save.error}>
          {(p) => <input {...p} type="email" value={form.email} onChange={set('email')} autoComplete="email" />}
        </Field>
        <Field label="Phone" name="phone.primary" error={save.error}>
          {(p) => <input {...p} type="tel" value={form.primary} onChange={set('primary')} autoComplete="tel" />}
        </Field>
        <Field label="Second phone" name="phone.secondary" error={save.error}>
          {(p) => <input {...p} type="tel" value={form.secondary} onChange={set('secondary')} />}
        </Field>
        <Field label="Group" name="group" error={save.error}>
          {(p) => <input {...p} value={form.group} onChange={set('group')} />}
        </Field>
      </div>
      <FormErrors error={save.error} fields={FIELDS} />
      <div className="panel-buttons">
        <button type="submit" disabled={save.busy}>
          {contact ? 'Save contact' : 'Add contact'}
        </button>
        {contact && (
          <button type="button" className="small" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** The people to call about the account's managed services. */
export function ManagedContacts({ canWrite }: { canWrite: boolean }) {
  const list = usePaged<Contact>('/managed/contacts');
  const [editing, setEditing] = useState<Contact | null>(null);
  const [fresh, setFresh] = useState(0);
  const remove = useAction(
    async (c: Contact) => {
      await api.del(`/managed/contacts/${c.id}`);
      if (editing?.id === c.id) setEditing(null);
      list.reload();
    },
    {
      done: (c) => `Contact ${c.name ?? c.id} deleted`,
      confirm: (c) => ({
        title: `Delete contact ${c.name ?? c.id}?`,
        body: 'Nobody calls them about managed services any more.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  return (
    <>
      <h2>Contacts</h2>
      <Table
        label="Contacts"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        sort={list.sort}
        empty="No contacts yet."
        columns={[
          { title: 'Name', cell: (c) => c.name ?? '—' },
          { title: 'Email', cell: (c) => c.email ?? '—' },
          { title: 'Phone', cell: (c) => [c.phone.primary, c.phone.secondary].filter(Boolean).join(', ') || '—' },
          { orderBy: 'group', title: 'Group', cell: (c) => c.group ?? '—' },
          { title: 'Updated', cell: (c) => when(c.updated) },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (c: Contact) => (
                    <div className="row-actions">
                      <button
                        type="button"
                        className="small"
                        onClick={() => setEditing(c)}
                        aria-label={`Edit contact ${c.name ?? c.id}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        onClick={() => void remove.run(c)}
                        aria-label={`Delete contact ${c.name ?? c.id}`}
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
        <ContactForm
          key={editing.id}
          contact={editing}
          onDone={() => {
            setEditing(null);
            list.reload();
          }}
        />
      )}
      {canWrite && !editing && (
        <ContactForm
          key={`new-${fresh}`}
          onDone={() => {
            setFresh((n) => n + 1);
            list.reload();
          }}
        />
      )}
    </>
  );
}
