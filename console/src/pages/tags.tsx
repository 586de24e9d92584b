import { useState } from 'react';
import { useAccess } from '../access.tsx';
import { api } from '../api.ts';
import { usePaged } from '../hooks.ts';
import { go } from '../router.ts';
import { Field, FormErrors, Pager, Table, useAction, useSubmit, when } from '../ui.tsx';
import './catalog.css';

interface Tagged {
  type: string;
  data: { id: number; label?: string; domain?: string; status?: string; created?: string };
}

/** Where a tagged object's page is: nodes and domains have their own sections. */
function objectLink(o: Tagged) {
  const name = o.data.label ?? o.data.domain ?? `${o.type} ${o.data.id}`;
  const section = { node: 'nodes', domain: 'domains' }[o.type];
  return section ? <a href={`#/${section}/${o.data.id}`}>{name}</a> : name;
}

/** Deleting a tag asks first: it comes off every object that has it. */
function useDeleteTag(after: () => void) {
  return useAction(
    async (tag: string) => {
      await api.del(`/tags/${encodeURIComponent(tag)}`);
      after();
    },
    {
      done: (tag) => `Tag ${tag} deleted`,
      confirm: (tag) => ({
        title: `Delete tag ${tag}?`,
        body: 'It comes off every node and domain that has it, and is gone from the list.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
}

export function TagsPage() {
  const access = useAccess();
  // Tags are made and deleted by unrestricted users only (the API's rule).
  const canWrite = !access.restricted && access.canAccount('read_write');
  const [search, setSearch] = useState('');
  const tags = usePaged<{ label: string }>('/tags', search ? { label: { '+contains': search } } : undefined, { by: 'label' });
  const [label, setLabel] = useState('');
  const create = useSubmit(
    async () => {
      await api.post('/tags', { label });
      setLabel('');
      tags.reload();
    },
    { done: () => `Tag ${label} created` },
  );
  const remove = useDeleteTag(tags.reload);
  return (
    <section>
      <h1>Tags</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Search tags">
        <label>
          Tag contains <input value={search} onChange={(e) => setSearch(e.target.value)} name="label" />
        </label>
      </form>
      <Table
        error={tags.error}
        retry={tags.reload}
        label="Tags"
        rows={tags.data?.data}
        rowKey={(t) => t.label}
        sort={tags.sort}
        empty={search ? 'No tag matches.' : 'No tags yet.'}
        columns={[
          {
            title: 'Tag',
            orderBy: 'label',
            cell: (t) => (
              <a href={`#/tags/${encodeURIComponent(t.label)}`} aria-label={`What has tag ${t.label}`}>
                {t.label}
              </a>
            ),
          },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (t: { label: string }) => (
                    <button
                      type="button"
                      className="small danger"
                      onClick={() => void remove.run(t.label)}
                      aria-label={`Delete tag ${t.label}`}
                    >
                      Delete
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager page={tags.data} setPage={tags.setPage} />
      <FormErrors error={remove.error} />
      {canWrite && (
        <>
          <form onSubmit={create.onSubmit} className="inline" noValidate aria-label="Make a tag">
            <Field label="New tag" name="label" error={create.error}>
              {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
            </Field>
            <button type="submit" disabled={create.busy}>
              Add tag
            </button>
          </form>
          <FormErrors error={create.error} fields={['label']} />
        </>
      )}
    </section>
  );
}

/** `#/tags/<label>`: the objects that carry the tag, each linked to its page. */
export function TagDetail({ label }: { label: string }) {
  const access = useAccess();
  const canWrite = !access.restricted && access.canAccount('read_write');
  const objects = usePaged<Tagged>(`/tags/${encodeURIComponent(label)}`);
  const remove = useDeleteTag(() => go('/tags'));
  return (
    <section>
      <header className="page-head">
        <h1>Tag {label}</h1>
        {canWrite && (
          <button type="button" className="danger" onClick={() => void remove.run(label)}>
            Delete tag
          </button>
        )}
      </header>
      <p>
        <a href="#/tags">All tags</a>
      </p>
      <Table
        label={`Objects tagged ${label}`}
        rows={objects.data?.data}
        rowKey={(o) => `${o.type}-${o.data.id}`}
        error={objects.error}
        retry={objects.reload}
        empty="Nothing carries this tag."
        columns={[
          { title: 'Object', cell: objectLink },
          { title: 'Kind', cell: (o) => o.type },
          { title: 'Status', cell: (o) => o.data.status ?? '—' },
          { title: 'Created', cell: (o) => when(o.data.created) },
        ]}
      />
      <Pager page={objects.data} setPage={objects.setPage} />
      <FormErrors error={remove.error} />
    </section>
  );
}

/** The tags section: `#/tags`, `#/tags/<label>`. */
export function TagsSection({ path }: { path: string[] }) {
  const [label] = path;
  return label ? <TagDetail label={label} /> : <TagsPage />;
}
