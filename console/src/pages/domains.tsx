import { DomainCreate } from './domains/create.tsx';
import { DomainDetail } from './domains/detail.tsx';
import { DomainImport } from './domains/import.tsx';
import { DomainsList } from './domains/list.tsx';
import './domains/domains.css';

/** The domains section: `#/domains`, `#/domains/create`, `#/domains/import`, `#/domains/<id>`. */
export function DomainsSection({ path }: { path: string[] }) {
  const [id] = path;
  if (id === 'create') return <DomainCreate />;
  if (id === 'import') return <DomainImport />;
  return id ? <DomainDetail id={Number(id)} /> : <DomainsList />;
}
