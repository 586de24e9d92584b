import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { useEvents, usePaged } from '../../hooks.ts';
import { Pager, Status, Table } from '../../ui.tsx';
import type { Domain } from './types.ts';

/** The domains, searched by name and ordered by the columns the API orders by. */
export function DomainsList() {
  const access = useAccess();
  const [text, setText] = useState('');
  const q = text.trim().toLowerCase();
  const list = usePaged<Domain>('/domains', q ? { domain: { '+contains': q } } : {}, { by: 'domain' });
  useEvents((events) => {
    if (events.some((e) => e.entity?.type === 'domain')) list.reload();
  });
  return (
    <section>
      <header className="page-head">
        <h1>Domains</h1>
        {access.canAdd('add_domains') && (
          <span className="dn-head-links">
            <a className="button" href="#/domains/create">
              Add a domain
            </a>
            <a className="button" href="#/domains/import">
              Import a zone
            </a>
          </span>
        )}
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter domains">
        <label>
          Domain contains <input type="search" name="domain" value={text} onChange={(e) => setText(e.target.value)} />
        </label>
      </form>
      <Table
        label="Domains"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        sort={list.sort}
        empty={q ? 'No domain has such a name.' : 'No domains yet.'}
        columns={[
          { title: 'Domain', orderBy: 'domain', cell: (d) => <a href={`#/domains/${d.id}`}>{d.domain}</a> },
          { title: 'Type', cell: (d) => d.type },
          { title: 'Status', cell: (d) => <Status value={d.status} /> },
          { title: 'Tags', cell: (d) => d.tags.join(', ') || '—' },
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
    </section>
  );
}
