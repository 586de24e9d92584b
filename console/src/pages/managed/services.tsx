import { useState } from 'react';
import { api, getAll } from '../../api.ts';
import { type ApiEvent, useEvents, useEvery, useLoad, usePaged } from '../../hooks.ts';
import { Field, FormErrors, Pager, Status, Table, useAction, useSubmit } from '../../ui.tsx';
import type { Credential } from './credentials.tsx';

export interface Service {
  id: number;
  label: string;
  service_type: 'url' | 'tcp';
  address: string;
  timeout: number;
  body: string | null;
  consultation_group: string;
  notes: string | null;
  credentials: number[];
  status: string;
}

const FIELDS = ['label', 'service_type', 'address', 'timeout', 'body', 'consultation_group', 'notes', 'credentials'];

function ServiceForm({
  service,
  credentials,
  onDone,
}: {
  service?: Service;
  credentials: Credential[] | undefined;
  onDone: () => void;
}) {
  const [form, setForm] = useState({
    label: service?.label ?? '',
    service_type: service?.service_type ?? 'url',
    address: service?.address ?? '',
    timeout: String(service?.timeout ?? 10),
    body: service?.body ?? '',
    consultation_group: service?.consultation_group ?? '',
    notes: service?.notes ?? '',
    credentials: service?.credentials ?? [],
  });
  const save = useSubmit(
    async () => {
      const body = { ...form, timeout: Number(form.timeout), body: form.body || null, notes: form.notes || null };
      if (service) await api.put(`/managed/services/${service.id}`, body);
      else await api.post('/managed/services', body);
      onDone();
    },
    { done: () => (service ? `Service ${form.label} saved` : `Service ${form.label} added`) },
  );
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const title = service ? `Edit service ${service.label}` : 'Monitor a service';
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label={title}>
      <h3>{title}</h3>
      <div className="grid">
        <Field label="Label" name="label" error={save.error}>
          {(p) => <input {...p} value={form.label} onChange={set('label')} />}
        </Field>
        <Field label="Type" name="service_type" error={save.error}>
          {(p) => (
            <select {...p} value={form.service_type} onChange={set('service_type')}>
              <option value="url">url: an HTTP(S) address</option>
              <option value="tcp">tcp: host and port</option>
            </select>
          )}
        </Field>
        <Field
          label="Address"
          name="address"
          error={save.error}
          hint={form.service_type === 'url' ? 'https://host/path' : 'host:port'}
        >
          {(p) => <input {...p} value={form.address} onChange={set('address')} />}
        </Field>
        <Field label="Timeout (s)" name="timeout" error={save.error}>
          {(p) => <input {...p} inputMode="numeric" value={form.timeout} onChange={set('timeout')} />}
        </Field>
        <Field label="Expected in the answer" name="body" error={save.error} hint="Optional text the answer must hold">
          {(p) => <input {...p} value={form.body} onChange={set('body')} />}
        </Field>
        <Field label="Contact group" name="consultation_group" error={save.error}>
          {(p) => <input {...p} value={form.consultation_group} onChange={set('consultation_group')} />}
        </Field>
        <div className="wide">
          <Field label="Notes for staff" name="notes" error={save.error}>
            {(p) => <textarea {...p} rows={2} value={form.notes} onChange={set('notes')} />}
          </Field>
        </div>
        {credentials && credentials.length > 0 && (
          <fieldset className="choices wide">
            <legend>Credentials staff may use</legend>
            {credentials.map((c) => (
              <label key={c.id} className="check">
                <input
                  type="checkbox"
                  checked={form.credentials.includes(c.id)}
                  onChange={(e) =>
                    setForm({
                      ...form,
                      credentials: e.target.checked ? [...form.credentials, c.id] : form.credentials.filter((id) => id !== c.id),
                    })
                  }
                />
                {c.label}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <FormErrors error={save.error} fields={FIELDS} />
      <div className="panel-buttons">
        <button type="submit" disabled={save.busy}>
          {service ? 'Save service' : 'Add service'}
        </button>
        {service && (
          <button type="button" className="small" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** The services the account's monitoring probes; their status moves as the probes answer. */
export function ManagedServices({ canWrite, credentialsVersion }: { canWrite: boolean; credentialsVersion: number }) {
  const list = usePaged<Service>('/managed/services');
  const credentials = useLoad(() => getAll<Credential>('/managed/credentials'), [credentialsVersion]);
  // A probe's answer changes a status without an event: read again every few seconds.
  useEvery(5000, list.reload);
  useEvents((events: ApiEvent[]) => {
    if (events.some((e) => e.action.startsWith('managed_'))) list.reload();
  });
  const [editing, setEditing] = useState<Service | null>(null);
  const [fresh, setFresh] = useState(0);
  const act = useAction(
    async (s: Service, what: 'enable' | 'disable' | 'delete') => {
      if (what === 'delete') {
        await api.del(`/managed/services/${s.id}`);
        if (editing?.id === s.id) setEditing(null);
      } else {
        await api.post(`/managed/services/${s.id}/${what}`);
      }
      list.reload();
    },
    {
      done: (s, what) => `Service ${s.label} ${{ enable: 'enabled', disable: 'disabled', delete: 'deleted' }[what]}`,
      confirm: (s, what) =>
        what === 'enable'
          ? null
          : {
              title: `${what === 'delete' ? 'Delete' : 'Disable'} service ${s.label}?`,
              body:
                what === 'delete'
                  ? 'Its monitoring ends and the service is forgotten. This cannot be undone.'
                  : 'It is no longer probed: nobody hears of it going down until it is enabled again.',
              action: what === 'delete' ? 'Delete' : 'Disable',
              danger: what === 'delete',
            },
    },
  );
  return (
    <>
      <h2>Services</h2>
      <Table
        label="Services"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        sort={list.sort}
        empty="No monitored services."
        columns={[
          { orderBy: 'label', title: 'Label', cell: (s) => s.label },
          { title: 'Type', cell: (s) => s.service_type },
          { title: 'Address', cell: (s) => <span className="mono">{s.address}</span> },
          { title: 'Status', cell: (s) => <Status value={s.status} /> },
          { title: 'Timeout', cell: (s) => `${s.timeout} s` },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (s: Service) => (
                    <div className="row-actions">
                      <button
                        type="button"
                        className="small"
                        onClick={() => setEditing(s)}
                        aria-label={`Edit service ${s.label}`}
                      >
                        Edit
                      </button>
                      {s.status === 'disabled' ? (
                        <button
                          type="button"
                          className="small"
                          onClick={() => void act.run(s, 'enable')}
                          aria-label={`Enable service ${s.label}`}
                        >
                          Enable
                        </button>
                      ) : (
                        <button
                          type="button"
                          className="small"
                          onClick={() => void act.run(s, 'disable')}
                          aria-label={`Disable service ${s.label}`}
                        >
                          Disable
                        </button>
                      )}
                      <button
                        type="button"
                        className="small danger"
                        onClick={() => void act.run(s, 'delete')}
                        aria-label={`Delete service ${s.label}`}
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
      <FormErrors error={act.error} />
      {canWrite && editing && (
        <ServiceForm
          key={editing.id}
          service={editing}
          credentials={credentials.data}
          onDone={() => {
            setEditing(null);
            list.reload();
          }}
        />
      )}
      {canWrite && !editing && (
        <ServiceForm
          key={`new-${fresh}`}
          credentials={credentials.data}
          onDone={() => {
            setFresh((n) => n + 1);
            list.reload();
          }}
        />
      )}
    </>
  );
}
