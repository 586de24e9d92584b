import { getAll } from '../../api.ts';
import { useEvery, useLoad, usePaged } from '../../hooks.ts';
import { Pager, Table, when } from '../../ui.tsx';
import type { Service } from './services.tsx';

interface Issue {
  id: number;
  created: string;
  services: number[];
  entity: { id: number; label: string };
}

/** The open issues: each a ticket the monitoring opened about services that stopped answering. */
export function ManagedIssues() {
  const issues = usePaged<Issue>('/managed/issues');
  const services = useLoad(() => getAll<Service>('/managed/services'), [issues.data?.data.flatMap((i) => i.services).join(',')]);
  // Probes open and close issues without an event to say so.
  useEvery(5000, issues.reload);
  const labelOf = (id: number) => services.data?.find((s) => s.id === id)?.label ?? `service ${id}`;
  return (
    <>
      <h2>Issues</h2>
      <Table
        label="Issues"
        rows={issues.data?.data}
        error={issues.error}
        retry={issues.reload}
        empty="No open issues."
        columns={[
          { title: 'Issue', cell: (i) => i.entity.label },
          { title: 'Services', cell: (i) => i.services.map(labelOf).join(', ') },
          { title: 'Opened', cell: (i) => when(i.created) },
        ]}
      />
      <Pager page={issues.data} setPage={issues.setPage} />
    </>
  );
}
