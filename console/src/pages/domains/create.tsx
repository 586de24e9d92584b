import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { go } from '../../router.ts';
import { TagsInput } from '../../tags-input.tsx';
import { Field, FormErrors, useSubmit } from '../../ui.tsx';
import { addressList, type Domain } from './types.ts';

/** `#/domains/create`: a master (its SOA email) or a slave (its masters' addresses). */
export function DomainCreate() {
  const access = useAccess();
  const [type, setType] = useState<'master' | 'slave'>('master');
  const [domain, setDomain] = useState('');
  const [soaEmail, setSoaEmail] = useState('');
  const [masterIps, setMasterIps] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const create = useSubmit(
    async () => {
      const body =
        type === 'master'
          ? { type, domain, soa_email: soaEmail, tags }
          : { type, domain, master_ips: addressList(masterIps), tags };
      const made = await api.post<Domain>('/domains', body);
      go(`/domains/${made.id}`);
    },
    { done: () => `Domain ${domain} added` },
  );
  // The profile is still being read: no answer yet either way.
  if (access.username === '') return <p className="muted">Loading…</p>;
  if (!access.canAdd('add_domains')) {
    return (
      <section>
        <h1>Add a domain</h1>
        <p className="muted">You may not add domains: ask the account's administrator for the grant.</p>
      </section>
    );
  }
  return (
    <section>
      <h1>Add a domain</h1>
      <p>
        <a href="#/domains">Back to the domains</a>
      </p>
      <form onSubmit={create.onSubmit} className="stack" noValidate aria-label="Add a domain">
        <fieldset className="dn-choice">
          <legend>Type</legend>
          <label className="check">
            <input type="radio" name="type" checked={type === 'master'} onChange={() => setType('master')} /> Master: this
            installation holds the records
          </label>
          <label className="check">
            <input type="radio" name="type" checked={type === 'slave'} onChange={() => setType('slave')} /> Slave: a copy of a
            zone another nameserver holds
          </label>
        </fieldset>
        <Field label="Domain" name="domain" error={create.error} hint="example.com">
          {(p) => <input {...p} value={domain} onChange={(e) => setDomain(e.target.value)} />}
        </Field>
        {type === 'master' ? (
          <Field label="SOA email" name="soa_email" error={create.error} hint="The zone's contact address">
            {(p) => <input {...p} type="email" value={soaEmail} onChange={(e) => setSoaEmail(e.target.value)} />}
          </Field>
        ) : (
          <Field label="Master IPs" name="master_ips" error={create.error} hint="The masters' addresses, one a line">
            {(p) => <textarea {...p} rows={3} value={masterIps} onChange={(e) => setMasterIps(e.target.value)} />}
          </Field>
        )}
        <TagsInput value={tags} onChange={setTags} />
        <div>
          <button type="submit" disabled={create.busy}>
            Add domain
          </button>
        </div>
      </form>
      <FormErrors error={create.error} fields={['domain', type === 'master' ? 'soa_email' : 'master_ips']} />
    </section>
  );
}
