import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { deleteAndLeave, useEvents, useEvery, useLoad, usePaged } from '../../hooks.ts';
import { go } from '../../router.ts';
import { Field, FormErrors, LoadError, Status, useAction, useSubmit } from '../../ui.tsx';
import { DomainRecords } from './records.tsx';
import { DomainSettings } from './settings.tsx';
import { type Domain, type DomainRecord, duration } from './types.ts';

const shown = (seconds: number, fallback: number) => (seconds ? duration(seconds) : `default (${duration(fallback)})`);

/** `#/domains/<id>`: the domain, its settings, its records and its zone file as served. */
export function DomainDetail({ id }: { id: number }) {
  const access = useAccess();
  const canWrite = access.canWrite('domain', id);
  const domain = useLoad(() => api.get<Domain>(`/domains/${id}`), [id]);
  const [recordSearch, setRecordSearch] = useState('');
  const records = usePaged<DomainRecord>(`/domains/${id}/records`, recordSearch ? { name: { '+contains': recordSearch } } : {}, {
    by: 'type',
  });
  const zone = useLoad(() => api.get<{ zone_file: string[] }>(`/domains/${id}/zone-file`), [id]);
  // The zone is rendered again a moment after each change (CUMULO_DNS_RENDER_DELAY_MS, 1 s unless
  // set): read soon after the change, and every few seconds for other users' changes.
  useEvery(3000, zone.reload);
  const changed = () => {
    domain.reload();
    records.reload();
    setTimeout(zone.reload, 1200);
  };
  useEvents((events) => {
    if (events.some((e) => e.entity?.type === 'domain' && e.entity.id === id)) changed();
  });
  const name = domain.data?.domain ?? 'this domain';
  const remove = useAction(
    async () => {
      await deleteAndLeave(() => api.del(`/domains/${id}`), '/domains');
    },
    {
      done: () => `Domain ${name} deleted`,
      confirm: () => ({
        title: `Delete domain ${name}?`,
        body: 'The domain and all its records are deleted, and the nameservers stop answering for it. This cannot be undone.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  if (domain.error) return <LoadError error={domain.error} retry={domain.reload} />;
  const d = domain.data;
  if (!d) return <p className="muted">Loading…</p>;
  return (
    <section className="domain">
      <p>
        <a href="#/domains">Domains</a>
      </p>
      <header className="page-head">
        <h1>{d.domain}</h1>
        <Status value={d.status} />
        <span className="status">{d.type}</span>
      </header>
      {canWrite && (
        <div className="actions">
          <button type="button" className="danger" disabled={remove.busy} onClick={() => void remove.run()}>
            Delete
          </button>
        </div>
      )}
      <FormErrors error={remove.error} />
      <dl className="facts">
        {d.type === 'master' ? (
          <>
            <dt>SOA email</dt>
            <dd>{d.soa_email}</dd>
          </>
        ) : (
          <>
            <dt>Master IPs</dt>
            <dd>{d.master_ips.join(', ')}</dd>
          </>
        )}
        <dt>Default TTL</dt>
        <dd>{shown(d.ttl_sec, 86400)}</dd>
        <dt>Refresh, retry, expire</dt>
        <dd>
          {shown(d.refresh_sec, 14400)}, {shown(d.retry_sec, 14400)}, {shown(d.expire_sec, 1209600)}
        </dd>
        <dt>Transfers allowed to</dt>
        <dd>{d.axfr_ips.join(', ') || 'nobody'}</dd>
        <dt>Description</dt>
        <dd>{d.description || '—'}</dd>
        <dt>Tags</dt>
        <dd>{d.tags.join(', ') || '—'}</dd>
      </dl>
      {d.type === 'master' ? (
        <DomainRecords
          domain={d}
          records={records}
          search={recordSearch}
          onSearch={setRecordSearch}
          canWrite={canWrite}
          changed={changed}
        />
      ) : (
        <p className="muted">A slave domain's records come from its masters: they are changed there.</p>
      )}
      <h2>Zone file</h2>
      <LoadError error={zone.error} retry={zone.reload} />
      {zone.data && zone.data.zone_file.length === 0 && <p className="muted">Not rendered yet.</p>}
      <pre className="zone dn-zone">{zone.data?.zone_file.join('\n')}</pre>
      {canWrite && <DomainSettings domain={d} saved={changed} />}
      {canWrite && access.canAdd('add_domains') && d.type === 'master' && <DomainClone domain={d} />}
    </section>
  );
}

/** A copy of the domain and its records under another name. */
function DomainClone({ domain }: { domain: Domain }) {
  const [name, setName] = useState('');
  const clone = useSubmit(
    async () => {
      const made = await api.post<Domain>(`/domains/${domain.id}/clone`, { domain: name });
      setName('');
      go(`/domains/${made.id}`);
    },
    { done: () => `${domain.domain} cloned as ${name}` },
  );
  return (
    <>
      <h2>Clone</h2>
      <form onSubmit={clone.onSubmit} className="inline" noValidate aria-label="Clone the domain">
        <Field label="New domain" name="domain" error={clone.error} hint={`Gets a copy of ${domain.domain}'s records`}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={clone.busy || !name}>
          Clone domain
        </button>
      </form>
      <FormErrors error={clone.error} fields={['domain']} />
    </>
  );
}
