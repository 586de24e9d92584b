import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { getAll } from '../../api.ts';
import { useLoad, usePaged } from '../../hooks.ts';
import { NODES_ORDER } from '../../page-requests.ts';
import { Pager, Status, Table, when } from '../../ui.tsx';
import { useNodeEvents } from '../node-events.ts';
import { loadRegions, type Node } from './model.ts';

export function NodesList() {
  const access = useAccess();
  const [label, setLabel] = useState('');
  const [region, setRegion] = useState('');
  const [tag, setTag] = useState('');
  const filter: Record<string, unknown> = {};
  if (label) filter.label = { '+contains': label };
  if (region) filter.region = region;
  if (tag) filter.tags = tag;
  const nodes = usePaged<Node>('/node/instances', filter, NODES_ORDER);
  const regions = useLoad(loadRegions, []);
  const tags = useLoad(() => getAll<{ label: string }>('/tags'), []);
  // A node's event may bring a tag the filter should offer (a node created or tagged elsewhere).
  useNodeEvents(() => {
    nodes.reload();
    tags.reload();
  });
  const filtered = Object.keys(filter).length > 0;
  return (
    <section className="nodes-list">
      <header className="page-head">
        <h1>Nodes</h1>
        {access.canAdd('add_nodes') && (
          <a className="button" href="#/nodes/create">
            Create a node
          </a>
        )}
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter nodes">
        <label>
          Label contains <input type="search" value={label} onChange={(e) => setLabel(e.target.value)} name="label" />
        </label>
        <label>
          Region{' '}
          <select value={region} onChange={(e) => setRegion(e.target.value)} name="region">
            <option value="">any</option>
            {regions.data?.map((r) => (
              <option key={r.id} value={r.id}>
                {r.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tag{' '}
          <select value={tag} onChange={(e) => setTag(e.target.value)} name="tag">
            <option value="">any</option>
            {tags.data?.map((t) => (
              <option key={t.label} value={t.label}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Table
        label="Nodes"
        rows={nodes.data?.data}
        error={nodes.error}
        retry={nodes.reload}
        sort={nodes.sort}
        empty={filtered ? 'No node matches these filters.' : 'No nodes yet.'}
        columns={[
          { title: 'Label', orderBy: 'label', cell: (n) => <a href={`#/nodes/${n.id}`}>{n.label}</a> },
          { title: 'Status', cell: (n) => <Status value={n.status} /> },
          { title: 'Region', orderBy: 'region', cell: (n) => n.region },
          { title: 'Type', cell: (n) => n.type },
          { title: 'Image', orderBy: 'image', cell: (n) => n.image ?? '—' },
          { title: 'Addresses', cell: (n) => [...n.ipv4, n.ipv6 ?? ''].filter(Boolean).join(', ') },
          { title: 'Tags', cell: (n) => n.tags.join(', ') },
          // Ids grow with time: ordering by id is ordering by creation.
          { title: 'Created', orderBy: 'id', cell: (n) => when(n.created) },
        ]}
      />
      <Pager page={nodes.data} setPage={nodes.setPage} />
    </section>
  );
}
