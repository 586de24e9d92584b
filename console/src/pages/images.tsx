import { useCallback, useState } from 'react';
import { useAccess } from '../access.tsx';
import { api } from '../api.ts';
import { type ApiEvent, useEvents, useEvery, usePaged } from '../hooks.ts';
import { TagsInput } from '../tags-input.tsx';
import { Field, FormErrors, Pager, Status, Table, useAction, useSubmit, when } from '../ui.tsx';
import { ImageUpload } from './image-upload.tsx';
import './catalog.css';

export interface Image {
  id: string;
  label: string;
  description: string | null;
  status: string;
  size: number;
  created: string;
  created_by: string;
  is_public: boolean;
  deprecated: boolean;
  type: string;
  vendor: string | null;
  regions: { region: string; status: string }[];
  tags: string[];
}

/** A private image's grant id: the number of `private/<num>`. */
export function imageGrantId(id: string): number {
  return Number(id.split('/')[1]);
}

/** The node create form with the image chosen (the id holds a slash: it stays one part of the address). */
export function deployImageHref(id: string): string {
  return `#/nodes/create?image=${encodeURIComponent(id)}`;
}

/** What changes an image without the user asking: its upload or capture being processed. */
const BUSY = ['pending_upload', 'creating'];

function ImageEdit({ image, onDone }: { image: Image; onDone: () => void }) {
  // Tags are changed by unrestricted users only (the API's rule); others see them.
  const { restricted } = useAccess();
  const [form, setForm] = useState({ label: image.label, description: image.description ?? '', tags: image.tags });
  const save = useSubmit(
    async () => {
      await api.put(`/images/${image.id}`, {
        label: form.label,
        description: form.description || null,
        ...(restricted ? {} : { tags: form.tags }),
      });
      onDone();
    },
    { done: () => `Image ${form.label} saved` },
  );
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label={`Edit image ${image.label}`}>
      <h3>Edit {image.label}</h3>
      <div className="grid">
        <Field label="Label" name="label" error={save.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <div className="wide">
          <Field label="Description" name="description" error={save.error}>
            {(p) => (
              <textarea
                {...p}
                rows={3}
                value={form.description}
                onChange={(e) => setForm({ ...form, description: e.target.value })}
              />
            )}
          </Field>
        </div>
      </div>
      <TagsInput value={form.tags} onChange={(tags) => setForm({ ...form, tags })} disabled={restricted} />
      <FormErrors error={save.error} fields={['label', 'description']} />
      <div className="panel-buttons">
        <button type="submit" className="primary" disabled={save.busy}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function ImagesPage() {
  const access = useAccess();
  const [search, setSearch] = useState('');
  const byLabel = search ? { label: { '+contains': search } } : {};
  const mine = usePaged<Image>('/images', { ...byLabel, is_public: false }, { by: 'label' });
  const shared = usePaged<Image>('/images', { ...byLabel, is_public: true }, { by: 'label' });
  const [editing, setEditing] = useState<string | null>(null);

  // An upload or a capture ends with its event; while one is under way the list is read again too.
  useEvents((events: ApiEvent[]) => {
    if (events.some((e) => e.entity?.type === 'image' || e.action.startsWith('image_') || e.action === 'disk_imagize'))
      mine.reload();
  });
  const pending = mine.data?.data.some((i) => BUSY.includes(i.status)) ?? false;
  const { reload } = mine;
  useEvery(
    3000,
    useCallback(() => {
      if (pending) reload();
    }, [pending, reload]),
  );

  const remove = useAction(
    async (image: Image) => {
      await api.del(`/images/${image.id}`);
      if (editing === image.id) setEditing(null);
      mine.reload();
    },
    {
      done: (image) => `Image ${image.label} deleted`,
      confirm: (image) => ({
        title: `Delete image ${image.label}?`,
        body: 'The image and its data are deleted. Nodes already deployed from it keep their disks. This cannot be undone.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  const editingImage = mine.data?.data.find((i) => i.id === editing);

  return (
    <section>
      <header className="page-head">
        <h1>Images</h1>
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Search images">
        <label>
          Label contains <input value={search} onChange={(e) => setSearch(e.target.value)} name="label" />
        </label>
      </form>
      <h2>Your images</h2>
      <Table
        label="Your images"
        rows={mine.data?.data}
        error={mine.error}
        retry={mine.reload}
        sort={mine.sort}
        empty={search ? 'None of your images matches.' : 'No images of your own yet.'}
        columns={[
          { title: 'Label', orderBy: 'label', cell: (i) => i.label },
          { title: 'Status', cell: (i) => <Status value={i.status} /> },
          { title: 'Region', cell: (i) => i.regions.map((r) => r.region).join(', ') || '—' },
          { title: 'Size (MB)', orderBy: 'size', cell: (i) => i.size },
          { title: 'Created', cell: (i) => when(i.created) },
          { title: 'Description', cell: (i) => i.description ?? '—' },
          { title: 'Tags', cell: (i) => i.tags.join(', ') || '—' },
          {
            title: 'Actions',
            cell: (i) => {
              const writable = access.canWrite('image', imageGrantId(i.id));
              return (
                <div className="row-actions">
                  {i.status === 'available' && (
                    <a className="button small" href={deployImageHref(i.id)} aria-label={`Deploy ${i.label} to a new node`}>
                      Deploy
                    </a>
                  )}
                  {writable && (
                    <button type="button" className="small" onClick={() => setEditing(i.id)} aria-label={`Edit ${i.label}`}>
                      Edit
                    </button>
                  )}
                  {writable && (
                    <button
                      type="button"
                      className="small danger"
                      onClick={() => void remove.run(i)}
                      aria-label={`Delete ${i.label}`}
                    >
                      Delete
                    </button>
                  )}
                </div>
              );
            },
          },
        ]}
      />
      <Pager page={mine.data} setPage={mine.setPage} />
      <FormErrors error={remove.error} />
      {editingImage && (
        <ImageEdit
          key={editingImage.id}
          image={editingImage}
          onDone={() => {
            setEditing(null);
            mine.reload();
          }}
        />
      )}
      {access.canAdd('add_images') && <ImageUpload onStarted={mine.reload} />}
      <h2>Public images</h2>
      <Table
        label="Public images"
        rows={shared.data?.data}
        error={shared.error}
        retry={shared.reload}
        sort={shared.sort}
        empty={search ? 'No public image matches.' : 'No public images.'}
        columns={[
          { title: 'Label', orderBy: 'label', cell: (i) => `${i.label}${i.deprecated ? ' (deprecated)' : ''}` },
          { title: 'Id', cell: (i) => <span className="mono">{i.id}</span> },
          { title: 'Vendor', orderBy: 'vendor', cell: (i) => i.vendor ?? '—' },
          { title: 'Size (MB)', orderBy: 'size', cell: (i) => i.size },
          {
            title: 'Actions',
            cell: (i) => (
              <a className="button small" href={deployImageHref(i.id)} aria-label={`Deploy ${i.label} to a new node`}>
                Deploy
              </a>
            ),
          },
        ]}
      />
      <Pager page={shared.data} setPage={shared.setPage} />
    </section>
  );
}

/** The images section: `#/images`. */
export function ImagesSection(_: { path: string[] }) {
  return <ImagesPage />;
}
