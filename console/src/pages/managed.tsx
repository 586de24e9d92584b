import { useState } from 'react';
import { api } from '../api.ts';
import { useEvery, usePaged } from '../hooks.ts';
import { Field, FormErrors, LoadError, Pager, Status, Table, useSubmit, when } from '../ui.tsx';

interface Service {
  id: number;
  label: string;
  service_type: string;
  address: string;
  status: string;
  timeout: number;
}
interface Issue {
  id: number;
  created: string;
  services: number[];
  entity: { label: string };
}

export function ManagedPage() {
  const services = usePaged<Service>('/managed/services');
  const issues = usePaged<Issue>('/managed/issues');
  // Probes change a service's status and open issues without an event to say so.
  useEvery(5000, services.reload);
  useEvery(5000, issues.reload);
  const [form, setForm] = useState({ label: '', service_type: 'url', address: '', timeout: '10' });
  const create = useSubmit(async () => {
    await api.post('/managed/services', { ...form, timeout: Number(form.timeout) });
    setForm({ ...form, label: '', address: '' });
    services.reload();
  });
  return (
    <section>
      <h1>Managed services</h1>
      <LoadError error={services.error} />
      <Table
        label="Services"
        rows={services.data?.data}
        empty="No monitored services."
        columns={[
          { title: 'Label', cell: (s) => s.label },
          { title: 'Type', cell: (s) => s.service_type },
          { title: 'Address', cell: (s) => <span className="mono">{s.address}</span> },
          { title: 'Status', cell: (s) => <Status value={s.status} /> },
        ]}
      />
      <Pager page={services.data} setPage={services.setPage} />
      <h2>Monitor a service</h2>
      <form onSubmit={create.onSubmit} className="grid" noValidate aria-label="Monitor a service">
        <Field label="Label" name="label" error={create.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <Field label="Type" name="service_type" error={create.error}>
          {(p) => (
            <select {...p} value={form.service_type} onChange={(e) => setForm({ ...form, service_type: e.target.value })}>
              <option value="url">url</option>
              <option value="tcp">tcp</option>
            </select>
          )}
        </Field>
        <Field label="Address" name="address" error={create.error} hint="https://host/path, or host:port for tcp">
          {(p) => <input {...p} value={form.address} onChange={(e) => setForm({ ...form, address: e.target.value })} />}
        </Field>
        <Field label="Timeout (s)" name="timeout" error={create.error}>
          {(p) => (
            <input
              {...p}
              inputMode="numeric"
              value={form.timeout}
              onChange={(e) => setForm({ ...form, timeout: e.target.value })}
            />
          )}
        </Field>
        <button type="submit" disabled={create.busy}>
          Add service
        </button>
      </form>
      <FormErrors error={create.error} fields={['label', 'service_type', 'address', 'timeout']} />
      <h2>Issues</h2>
      <LoadError error={issues.error} />
      <Table
        label="Issues"
        rows={issues.data?.data}
        empty="No issues."
        columns={[
          { title: 'Issue', cell: (i) => i.entity.label },
          { title: 'Opened', cell: (i) => when(i.created) },
        ]}
      />
      <Pager page={issues.data} setPage={issues.setPage} />
    </section>
  );
}
