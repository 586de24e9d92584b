import { useEffect, useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { deleteAndLeave, useEvents, useLoad, usePaged } from '../../hooks.ts';
import { go } from '../../router.ts';
import { Field, FormErrors, Pager, SearchBox, Show, Status, Table, useAction, useSubmit } from '../../ui.tsx';
import { ShownOnce } from './shown-once.tsx';

interface OAuthClient {
  id: string;
  label: string;
  redirect_uri: string;
  public: boolean;
  status: string;
  secret: string;
}

const PATH = '/account/oauth-clients';

/** The secret a create or a reset gives, kept for the client's page to show once (it is never read again). */
let freshSecret: { id: string; secret: string } | null = null;

function ClientFields({
  form,
  setForm,
  error,
}: {
  form: { label: string; redirect_uri: string; public: boolean };
  setForm: (form: { label: string; redirect_uri: string; public: boolean }) => void;
  error: unknown;
}) {
  return (
    <>
      <Field label="Label" name="label" error={error}>
        {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
      </Field>
      <Field label="Redirect URI" name="redirect_uri" error={error} hint="https://…, or http:// to this computer">
        {(p) => (
          <input
            {...p}
            type="url"
            value={form.redirect_uri}
            onChange={(e) => setForm({ ...form, redirect_uri: e.target.value })}
          />
        )}
      </Field>
      <label className="check">
        <input
          type="checkbox"
          name="public"
          checked={form.public}
          onChange={(e) => setForm({ ...form, public: e.target.checked })}
        />
        Public (runs in a browser or on a device, cannot keep a secret: signs in with PKCE)
      </label>
    </>
  );
}

const EMPTY = { label: '', redirect_uri: '', public: false };

function NewClientForm() {
  const [form, setForm] = useState(EMPTY);
  const create = useSubmit(
    async () => {
      const client = await api.post<OAuthClient>(PATH, form);
      freshSecret = { id: client.id, secret: client.secret };
      go(`${PATH}/${client.id}`);
    },
    { done: () => `OAuth client ${form.label} registered` },
  );
  return (
    <>
      <form onSubmit={create.onSubmit} className="grid" noValidate aria-label="Register an OAuth client">
        <ClientFields form={form} setForm={setForm} error={create.error} />
        <button type="submit" disabled={create.busy}>
          Register client
        </button>
      </form>
      <FormErrors error={create.error} fields={['label', 'redirect_uri', 'public']} />
    </>
  );
}

export function OAuthClientsList() {
  const access = useAccess();
  const [q, setQ] = useState('');
  const clients = usePaged<OAuthClient>(PATH, q ? { label: { '+contains': q } } : undefined, { by: 'label' });
  useEvents((events) => {
    if (events.some((e) => e.action.startsWith('oauth_client_'))) clients.reload();
  });
  return (
    <section>
      <h1>OAuth clients</h1>
      <p className="muted">Apps that ask users of this server to sign in and let them act for them.</p>
      <SearchBox label="Search by label" value={q} onChange={setQ} />
      <Table
        label="OAuth clients"
        rows={clients.data?.data}
        empty={q ? 'No client matches.' : 'No OAuth clients yet.'}
        error={clients.error}
        retry={clients.reload}
        sort={clients.sort}
        columns={[
          { title: 'Label', orderBy: 'label', cell: (c) => <a href={`#${PATH}/${c.id}`}>{c.label}</a> },
          { title: 'Redirect URI', cell: (c) => <span className="mono wrap">{c.redirect_uri}</span> },
          { title: 'Kind', cell: (c) => (c.public ? 'Public' : 'Confidential') },
          { title: 'Status', cell: (c) => <Status value={c.status} /> },
        ]}
      />
      <Pager page={clients.data} setPage={clients.setPage} />
      {access.canAccount('read_write') && (
        <>
          <h2>Register an OAuth client</h2>
          <NewClientForm />
        </>
      )}
    </section>
  );
}

function EditClientForm({ client, onSaved }: { client: OAuthClient; onSaved: () => void }) {
  const [form, setForm] = useState({ label: client.label, redirect_uri: client.redirect_uri, public: client.public });
  const stored = JSON.stringify([client.label, client.redirect_uri, client.public]);
  // What another tab or user saved shows here too; a re-read of the same client keeps what is being typed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the client's text stands for the client
  useEffect(() => setForm({ label: client.label, redirect_uri: client.redirect_uri, public: client.public }), [stored]);
  const save = useAction(
    async () => {
      await api.put(`${PATH}/${client.id}`, form);
      onSaved();
    },
    {
      done: () =>
        client.public && !form.public
          ? `OAuth client ${form.label} saved: reset its secret to give it one`
          : `OAuth client ${form.label} saved`,
      // A client made public loses its secret: the app's sign-ins with it stop.
      confirm: () =>
        !client.public && form.public
          ? {
              title: `Make OAuth client ${client.label} public?`,
              body: 'Its secret is dropped at once: the app must then sign users in with PKCE instead.',
              action: 'Make public',
              danger: true,
            }
          : null,
    },
  );
  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
        className="grid"
        noValidate
        aria-label="Edit the client"
      >
        <ClientFields form={form} setForm={setForm} error={save.error} />
        <button type="submit" disabled={save.busy}>
          Save
        </button>
      </form>
      <FormErrors error={save.error} fields={['label', 'redirect_uri', 'public']} />
    </>
  );
}

export function OAuthClientDetail({ id }: { id: string }) {
  const access = useAccess();
  const writes = access.canAccount('read_write');
  const client = useLoad(() => api.get<OAuthClient>(`${PATH}/${id}`), [id]);
  const [secret, setSecret] = useState<string | null>(() => (freshSecret?.id === id ? freshSecret.secret : null));
  useEffect(() => {
    freshSecret = null;
  }, []);
  const reset = useAction(
    async (c: OAuthClient) => {
      const renewed = await api.post<OAuthClient>(`${PATH}/${c.id}/reset-secret`);
      setSecret(renewed.secret);
    },
    {
      done: (c) => `Secret of ${c.label} reset: copy the new one now`,
      confirm: (c) => ({
        title: `Reset the secret of ${c.label}?`,
        body: 'The old secret stops working at once: the app cannot sign anyone in until it is given the new one.',
        action: 'Reset secret',
        danger: true,
      }),
    },
  );
  const remove = useAction(
    async (c: OAuthClient) => {
      await deleteAndLeave(() => api.del(`${PATH}/${c.id}`), PATH);
    },
    {
      done: (c) => `OAuth client ${c.label} deleted`,
      confirm: (c) => ({
        title: `Delete OAuth client ${c.label}?`,
        body: 'Users can no longer sign in to it, and every access it was allowed ends at once.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  return (
    <section>
      <p className="crumbs">
        <a href={`#${PATH}`}>OAuth clients</a> /
      </p>
      <Show loaded={client}>
        {(c) => (
          <>
            <header className="page-head">
              <h1>{c.label}</h1>
              <Status value={c.status} />
            </header>
            {secret && <ShownOnce title={`The secret of ${c.label}`} value={secret} onDone={() => setSecret(null)} />}
            <dl className="facts">
              <dt>Client ID</dt>
              <dd className="mono">{c.id}</dd>
              <dt>Redirect URI</dt>
              <dd className="mono wrap">{c.redirect_uri}</dd>
              <dt>Kind</dt>
              <dd>{c.public ? 'Public: signs in with PKCE, no secret' : 'Confidential: keeps a secret'}</dd>
            </dl>
            {writes && (
              <>
                <div className="actions client-actions">
                  {!c.public && (
                    <button type="button" onClick={() => void reset.run(c)} disabled={reset.busy}>
                      Reset secret
                    </button>
                  )}
                  <button type="button" className="danger" onClick={() => void remove.run(c)} disabled={remove.busy}>
                    Delete client
                  </button>
                </div>
                <FormErrors error={reset.error ?? remove.error} />
                <h2>Edit</h2>
                <EditClientForm client={c} onSaved={client.reload} />
              </>
            )}
          </>
        )}
      </Show>
    </section>
  );
}
