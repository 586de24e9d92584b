import { useState } from 'react';
import { useAccess } from '../access.tsx';
import { ManagedContacts } from './managed/contacts.tsx';
import { ManagedCredentials } from './managed/credentials.tsx';
import { ManagedIssues } from './managed/issues.tsx';
import { ManagedNodeSettings } from './managed/node-settings.tsx';
import { ManagedServices } from './managed/services.tsx';
import './catalog.css';

/**
 * Managed is account-wide and for unrestricted users only (the API refuses restricted ones): a user
 * without account read_write sees it without write controls.
 */
export function ManagedPage() {
  const access = useAccess();
  const [credentialsVersion, setCredentialsVersion] = useState(0);
  if (access.username === '') return <p className="muted">Loading…</p>;
  if (access.restricted) {
    return (
      <section>
        <h1>Managed</h1>
        <p>Managed services are run by the account's unrestricted users; ask one of them.</p>
      </section>
    );
  }
  const canWrite = access.canAccount('read_write');
  return (
    <section>
      <h1>Managed</h1>
      <ManagedServices canWrite={canWrite} credentialsVersion={credentialsVersion} />
      <ManagedIssues />
      <ManagedContacts canWrite={canWrite} />
      <ManagedCredentials canWrite={canWrite} onChange={() => setCredentialsVersion((n) => n + 1)} />
      <ManagedNodeSettings canWrite={canWrite} />
    </section>
  );
}

/** The managed section: `#/managed`. */
export function ManagedSection(_: { path: string[] }) {
  return <ManagedPage />;
}
