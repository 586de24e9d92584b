import { useState } from 'react';
import { api } from '../api.ts';
import { usePaged } from '../hooks.ts';
import { Field, FormErrors, LoadError, Pager, Table, useAction, useSubmit } from '../ui.tsx';

export function TagsPage() {
  const tags = usePaged<{ label: string }>('/tags');
  const [label, setLabel] = useState('');
  const create = useSubmit(async () => {
    await api.post('/tags', { label });
    setLabel('');
    tags.reload();
  });
  const remove = useAction(async (tag: string) => {
    await api.del(`/tags/${encodeURIComponent(tag)}`);
    tags.reload();
  });
  return (
    <section>
      <h1>Tags</h1>
      <LoadError error={tags.error} />
      <Table
        label="Tags"
        rows={tags.data?.data}
        rowKey={(t) => t.label}
        empty="No tags yet."
        columns={[
          { title: 'Tag', cell: (t) => t.label },
          {
            title: '',
            cell: (t) => (
              <button type="button" className="small" onClick={() => remove.run(t.label)} aria-label={`Delete tag ${t.label}`}>
                Delete
              </button>
            ),
          },
        ]}
      />
      <Pager page={tags.data} setPage={tags.setPage} />
      <FormErrors error={remove.error} />
      <form onSubmit={create.onSubmit} className="inline" noValidate aria-label="New tag">
        <Field label="New tag" name="label" error={create.error}>
          {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <button type="submit" disabled={create.busy}>
          Add tag
        </button>
      </form>
      <FormErrors error={create.error} fields={['label']} />
    </section>
  );
}
