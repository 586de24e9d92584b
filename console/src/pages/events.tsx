import { type ApiEvent, useEvents, usePaged } from '../hooks.ts';
import { LoadError, Pager, Status, Table, when } from '../ui.tsx';

export function EventsPage() {
  const events = usePaged<ApiEvent>('/account/events');
  useEvents(() => {
    if (events.page === 1) events.reload();
  });
  return (
    <section>
      <h1>Events</h1>
      <LoadError error={events.error} />
      <Table
        label="Events"
        rows={events.data?.data}
        empty="Nothing has happened yet."
        columns={[
          { title: 'When', cell: (e) => when(e.created) },
          { title: 'Action', cell: (e) => e.action },
          { title: 'Entity', cell: (e) => (e.entity ? `${e.entity.type} ${e.entity.label}` : '—') },
          { title: 'Status', cell: (e) => <Status value={e.status} /> },
          { title: 'By', cell: (e) => e.username ?? '—' },
        ]}
      />
      <Pager page={events.data} setPage={events.setPage} />
    </section>
  );
}

/** The events section: `#/events`. */
export function EventsSection(_: { path: string[] }) {
  return <EventsPage />;
}
