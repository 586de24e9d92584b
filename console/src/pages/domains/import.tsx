import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { go } from '../../router.ts';
import { Field, FormErrors, useSubmit } from '../../ui.tsx';
import type { Domain } from './types.ts';

/** `#/domains/import`: a zone transferred (AXFR) from another nameserver becomes a master domain. */
export function DomainImport() {
  const access = useAccess();
  const [domain, setDomain] = useState('');
  const [remote, setRemote] = useState('');
  const submit = useSubmit(
    async () => {
      const made = await api.post<Domain>('/domains/import', { domain, remote_nameserver: remote });
      go(`/domains/${made.id}`);
    },
    { done: () => `Zone ${domain} imported from ${remote}` },
  );
  // The profile is still being read: no answer yet either way.
  if (access.username === '') return <p className="muted">Loading…</p>;
  if (!access.canAdd('add_domains')) {
    return (
      <section>
        <h1>Import a zone</h1>
        <p className="muted">You may not add domains: ask the account's administrator for the grant.</p>
      </section>
    );
  }
  return (
    <section>
      <h1>Import a zone</h1>
      <p>
        <a href="#/domains">Back to the domains</a>
      </p>
      <p className="muted">
        The zone is transferred (AXFR) from its nameserver, which must allow transfers to this installation, and becomes a master
        domain with its records.
      </p>
      <form onSubmit={submit.onSubmit} className="stack" noValidate aria-label="Import a zone">
        <Field label="Domain" name="domain" error={submit.error} hint="The zone's name: example.com">
          {(p) => <input {...p} value={domain} onChange={(e) => setDomain(e.target.value)} />}
        </Field>
        <Field
          label="Remote nameserver"
          name="remote_nameserver"
          error={submit.error}
          hint="A host name or address, with :port when not 53"
        >
          {(p) => <input {...p} value={remote} onChange={(e) => setRemote(e.target.value)} />}
        </Field>
        <div>
          <button type="submit" disabled={submit.busy}>
            {submit.busy ? 'Transferring…' : 'Import zone'}
          </button>
        </div>
      </form>
      <FormErrors error={submit.error} fields={['domain', 'remote_nameserver']} />
    </section>
  );
}
