import { useState } from 'react';
import { api } from '../../api.ts';
import type { usePaged } from '../../hooks.ts';
import { FormErrors, Pager, SearchBox, Table, useAction, useSubmit } from '../../ui.tsx';
import { draftOfRecord, emptyRecord, type RecordDraft, RecordForm, recordBody } from './record-form.tsx';
import { type Domain, type DomainRecord, duration } from './types.ts';

/** What a record holds besides its target: MX priority; SRV priority, weight and port; CAA tag. */
function detailsOf(r: DomainRecord): string {
  if (r.type === 'MX') return `priority ${r.priority}`;
  if (r.type === 'SRV') return `priority ${r.priority}, weight ${r.weight}, port ${r.port}`;
  if (r.type === 'CAA') return `tag ${r.tag ?? ''}`;
  return '';
}

/** How a record is named in a question or a toast: "MX record @", "A record www". */
export function recordName(r: { type: string; name: string; service?: string | null; protocol?: string | null }): string {
  const name = r.type === 'SRV' && r.service ? `_${r.service.replace(/^_/, '')}._${r.protocol ?? 'tcp'}` : r.name;
  return `${r.type} record ${name || '@'}`;
}

/** A master domain's records: the table (ordered by type or name), and one form that adds a record or edits the one picked. */
export function DomainRecords({
  domain,
  records,
  search,
  onSearch,
  canWrite,
  changed,
}: {
  domain: Domain;
  records: ReturnType<typeof usePaged<DomainRecord>>;
  /** Only the records whose name holds this text (a large zone's records are found by name). */
  search: string;
  onSearch: (text: string) => void;
  canWrite: boolean;
  changed: () => void;
}) {
  const [editing, setEditing] = useState<DomainRecord | null>(null);
  const [draft, setDraft] = useState<RecordDraft>(() => emptyRecord());
  const reset = () => {
    setEditing(null);
    setDraft(emptyRecord(draft.type));
  };
  const submit = useSubmit(
    async () => {
      if (editing) await api.put(`/domains/${domain.id}/records/${editing.id}`, recordBody(draft, false));
      else await api.post(`/domains/${domain.id}/records`, recordBody(draft, true));
      reset();
      changed();
    },
    {
      done: () =>
        editing ? `${recordName(editing)} saved in ${domain.domain}` : `${recordName(draft)} added to ${domain.domain}`,
    },
  );
  const remove = useAction(
    async (r: DomainRecord) => {
      await api.del(`/domains/${domain.id}/records/${r.id}`);
      if (editing?.id === r.id) reset();
      changed();
    },
    {
      done: (r) => `${recordName(r)} deleted from ${domain.domain}`,
      confirm: (r) => ({
        title: `Delete ${recordName(r)} of ${domain.domain}?`,
        body: `${r.name || domain.domain} stops answering ${r.type} ${r.target ? `with ${r.target}` : ''} as soon as the zone is rendered again.`,
        action: 'Delete',
        danger: true,
      }),
    },
  );
  const edit = (r: DomainRecord) => {
    setEditing(r);
    setDraft(draftOfRecord(r));
  };
  return (
    <>
      <h2>Records</h2>
      <SearchBox label="Name contains" value={search} onChange={onSearch} />
      <Table
        label="Records"
        rows={records.data?.data}
        error={records.error}
        retry={records.reload}
        sort={records.sort}
        empty={search ? 'No record name holds that text.' : 'No records yet.'}
        columns={[
          { title: 'Type', orderBy: 'type', cell: (r) => r.type },
          { title: 'Name', orderBy: 'name', cell: (r) => r.name || '@' },
          { title: 'Target', cell: (r) => <span className="mono dn-target">{r.target || '(none)'}</span> },
          { title: 'Details', cell: (r) => detailsOf(r) || '—' },
          { title: 'TTL', cell: (r) => (r.ttl_sec ? duration(r.ttl_sec) : 'default') },
          ...(canWrite
            ? [
                {
                  title: '',
                  cell: (r: DomainRecord) => (
                    <span className="dn-row-actions">
                      <button type="button" className="small" onClick={() => edit(r)} aria-label={`Edit ${recordName(r)}`}>
                        Edit
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        disabled={remove.busy}
                        onClick={() => void remove.run(r)}
                        aria-label={`Delete ${recordName(r)}`}
                      >
                        Delete
                      </button>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager page={records.data} setPage={records.setPage} />
      <FormErrors error={remove.error} />
      {canWrite && (
        <RecordForm
          draft={draft}
          setDraft={setDraft}
          editing={editing !== null}
          title={editing ? `Edit ${recordName(editing)}` : 'Add a record'}
          submit={editing ? 'Save record' : 'Add record'}
          error={submit.error}
          busy={submit.busy}
          onSubmit={submit.onSubmit}
          onCancel={editing ? reset : undefined}
        />
      )}
    </>
  );
}
