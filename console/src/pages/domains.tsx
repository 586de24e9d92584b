import { useState } from 'react';
import { api } from '../api.ts';
import { useEvery, useLoad, usePaged } from '../hooks.ts';
import { go } from '../router.ts';
import { Field, FormErrors, LoadError, Pager, Status, Table, useAction, useSubmit } from '../ui.tsx';

interface Domain {
  id: number;
  domain: string;
  type: string;
  status: string;
  soa_email: string;
}
interface DomainRecord {
  id: number;
  type: string;
  name: string;
  target: string;
  ttl_sec: number;
  priority: number;
}

export function DomainsList() {
  const list = usePaged<Domain>('/domains');
  const [form, setForm] = useState({ domain: '', soa_email: '' });
  const create = useSubmit(async () => {
    const d = await api.post<Domain>('/domains', { ...form, type: 'master' });
    go(`/domains/${d.id}`);
  });
  return (
    <section>
      <h1>Domains</h1>
      <LoadError error={list.error} />
      <Table
        label="Domains"
        rows={list.data?.data}
        empty="No domains yet."
        columns={[
          { title: 'Domain', cell: (d) => <a href={`#/domains/${d.id}`}>{d.domain}</a> },
          { title: 'Type', cell: (d) => d.type },
          { title: 'Status', cell: (d) => <Status value={d.status} /> },
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
      <h2>New master domain</h2>
      <form onSubmit={create.onSubmit} className="grid" noValidate aria-label="New domain">
        <Field label="Domain" name="domain" error={create.error}>
          {(p) => <input {...p} value={form.domain} onChange={(e) => setForm({ ...form, domain: e.target.value })} />}
        </Field>
        <Field label="SOA email" name="soa_email" error={create.error}>
          {(p) => (
            <input {...p} type="email" value={form.soa_email} onChange={(e) => setForm({ ...form, soa_email: e.target.value })} />
          )}
        </Field>
        <button type="submit" disabled={create.busy}>
          Create domain
        </button>
      </form>
      <FormErrors error={create.error} fields={['domain', 'soa_email']} />
    </section>
  );
}

const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'PTR'];

export function DomainDetail({ id }: { id: number }) {
  const domain = useLoad(() => api.get<Domain>(`/domains/${id}`), [id]);
  const records = usePaged<DomainRecord>(`/domains/${id}/records`);
  const zone = useLoad(() => api.get<{ zone_file: string[] }>(`/domains/${id}/zone-file`), [id]);
  // The zone is rendered again after each change, a moment later.
  useEvery(3000, zone.reload);
  const [form, setForm] = useState({ type: 'A', name: '', target: '', ttl_sec: '' });
  const add = useSubmit(async () => {
    const body: Record<string, unknown> = { type: form.type, name: form.name, target: form.target };
    if (form.ttl_sec) body.ttl_sec = Number(form.ttl_sec);
    await api.post(`/domains/${id}/records`, body);
    setForm({ ...form, name: '', target: '' });
    records.reload();
    zone.reload();
  });
  const remove = useAction(async (recordId: number) => {
    await api.del(`/domains/${id}/records/${recordId}`);
    records.reload();
    zone.reload();
  });
  if (domain.error) return <LoadError error={domain.error} />;
  const d = domain.data;
  if (!d) return <p className="muted">Loading…</p>;
  return (
    <section>
      <header className="page-head">
        <h1>{d.domain}</h1>
        <Status value={d.status} />
      </header>
      <h2>Records</h2>
      <Table
        label="Records"
        rows={records.data?.data}
        empty="No records yet."
        columns={[
          { title: 'Type', cell: (r) => r.type },
          { title: 'Name', cell: (r) => r.name || '@' },
          { title: 'Target', cell: (r) => <span className="mono">{r.target}</span> },
          { title: 'TTL', cell: (r) => r.ttl_sec || 'default' },
          {
            title: '',
            cell: (r) => (
              <button
                type="button"
                className="small"
                onClick={() => remove.run(r.id)}
                aria-label={`Delete record ${r.type} ${r.name}`}
              >
                Delete
              </button>
            ),
          },
        ]}
      />
      <Pager page={records.data} setPage={records.setPage} />
      <FormErrors error={remove.error} />
      <h3>Add a record</h3>
      <form onSubmit={add.onSubmit} className="grid" noValidate aria-label="Add a record">
        <Field label="Type" name="type" error={add.error}>
          {(p) => (
            <select {...p} value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value })}>
              {RECORD_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Name" name="name" error={add.error} hint="Empty for the domain itself">
          {(p) => <input {...p} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="Target" name="target" error={add.error}>
          {(p) => <input {...p} value={form.target} onChange={(e) => setForm({ ...form, target: e.target.value })} />}
        </Field>
        <Field label="TTL (seconds)" name="ttl_sec" error={add.error}>
          {(p) => (
            <input
              {...p}
              inputMode="numeric"
              value={form.ttl_sec}
              onChange={(e) => setForm({ ...form, ttl_sec: e.target.value })}
            />
          )}
        </Field>
        <button type="submit" disabled={add.busy}>
          Add record
        </button>
      </form>
      <FormErrors error={add.error} fields={['type', 'name', 'target', 'ttl_sec']} />
      <h2>Zone file</h2>
      <LoadError error={zone.error} />
      <pre className="zone">{zone.data?.zone_file.join('\n')}</pre>
    </section>
  );
}
