import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { useEvents, usePaged } from '../../hooks.ts';
import { Pager, Status, Table, when } from '../../ui.tsx';
import type { Firewall } from './types.ts';

/** The firewalls, searched by label and ordered by the columns the API orders by. */
export function FirewallsList() {
  const access = useAccess();
  const [label, setLabel] = useState('');
  const list = usePaged<Firewall>('/networking/firewalls', label ? { label: { '+contains': label } } : {}, { by: 'label' });
  useEvents((events) => {
    if (events.some((e) => e.entity?.type === 'firewall')) list.reload();
  });
  return (
    <section>
      <header className="page-head">
        <h1>Firewalls</h1>
        {access.canAdd('add_firewalls') && (
          <a className="button" href="#/firewalls/create">
            Create a firewall
          </a>
        )}
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter firewalls">
        <label>
          Label contains <input type="search" name="label" value={label} onChange={(e) => setLabel(e.target.value)} />
        </label>
      </form>
      <Table
        label="Firewalls"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        sort={list.sort}
        empty={label ? 'No firewall has such a label.' : 'No firewalls yet.'}
        columns={[
          { title: 'Label', orderBy: 'label', cell: (f) => <a href={`#/firewalls/${f.id}`}>{f.label}</a> },
          { title: 'Status', cell: (f) => <Status value={f.status} /> },
          {
            title: 'Rules',
            cell: (f) =>
              `${f.rules.inbound.length} in, else ${f.rules.inbound_policy}; ${f.rules.outbound.length} out, else ${f.rules.outbound_policy}`,
          },
          { title: 'Tags', cell: (f) => f.tags.join(', ') || '—' },
          { title: 'Created', orderBy: 'created', cell: (f) => when(f.created) },
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
    </section>
  );
}
