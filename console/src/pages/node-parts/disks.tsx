import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { type Loaded, useLoad } from '../../hooks.ts';
import { Choice, Field, FormErrors, Status, Table, useAction, useSubmit, when } from '../../ui.tsx';
import type { Disk, NodeInfo } from './types.ts';

const FILESYSTEMS = ['ext4', 'ext3', 'swap', 'raw', 'initrd'];

/** The node's disks: add one (blank or from an image), rename, resize, delete. */
export function DisksPart({ node, disks }: { node: NodeInfo; disks: Loaded<Disk[]> }) {
  const canWrite = useAccess().canWrite('node', node.id);
  const [editing, setEditing] = useState<number | null>(null);
  const used = disks.data?.reduce((sum, d) => sum + d.size, 0) ?? 0;
  const free = node.specs.disk - used;
  const remove = useAction(
    async (disk: Disk) => {
      await api.del(`/node/instances/${node.id}/disks/${disk.id}`);
      if (editing === disk.id) setEditing(null);
      disks.reload();
    },
    {
      done: (disk) => `Disk ${disk.label} deleted`,
      confirm: (disk) => ({
        title: `Delete disk ${disk.label}?`,
        body: `Its ${disk.size} MB and everything on them are gone for good; configs that use it lose the device.`,
        action: 'Delete',
        danger: true,
      }),
    },
  );
  const edited = disks.data?.find((d) => d.id === editing);
  return (
    <section aria-labelledby="disks-title">
      <h2 id="disks-title">Disks</h2>
      <p className="muted">{disks.data ? `${used} MB of ${node.specs.disk} MB used; ${free} MB free.` : ''}</p>
      <Table
        label="Disks"
        rows={disks.data}
        error={disks.error}
        retry={disks.reload}
        empty="No disks."
        columns={[
          { title: 'Label', cell: (d) => d.label },
          { title: 'Size (MB)', cell: (d) => d.size },
          { title: 'Filesystem', cell: (d) => d.filesystem },
          { title: 'Status', cell: (d) => <Status value={d.status} /> },
          { title: 'Created', cell: (d) => when(d.created) },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (d: Disk) => (
                    <span className="row-actions">
                      <button
                        type="button"
                        className="small"
                        aria-label={`Edit disk ${d.label}`}
                        aria-expanded={editing === d.id}
                        disabled={d.status !== 'ready'}
                        onClick={() => setEditing(editing === d.id ? null : d.id)}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        aria-label={`Delete disk ${d.label}`}
                        disabled={remove.busy || d.status === 'deleting'}
                        onClick={() => void remove.run(d)}
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
      <FormErrors error={remove.error} />
      {canWrite && edited && (
        <DiskEdit key={edited.id} node={node} disk={edited} free={free} done={disks.reload} close={() => setEditing(null)} />
      )}
      {canWrite && <DiskCreate node={node} free={free} done={disks.reload} />}
    </section>
  );
}

/** Rename a disk, or resize it within what the plan leaves. */
function DiskEdit({
  node,
  disk,
  free,
  done,
  close,
}: {
  node: NodeInfo;
  disk: Disk;
  free: number;
  done: () => void;
  close: () => void;
}) {
  const [label, setLabel] = useState(disk.label);
  const [size, setSize] = useState(String(disk.size));
  const rename = useSubmit(
    async () => {
      await api.put(`/node/instances/${node.id}/disks/${disk.id}`, { label });
      done();
    },
    { done: () => `Disk renamed to ${label}` },
  );
  const resize = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/disks/${disk.id}/resize`, { size: Number(size) });
      done();
    },
    { done: () => `Disk ${disk.label} resizing to ${size} MB` },
  );
  const most = disk.size + free;
  return (
    <div className="part-panel">
      <h3>Disk {disk.label}</h3>
      <form onSubmit={rename.onSubmit} className="grid" noValidate aria-label={`Rename disk ${disk.label}`}>
        <Field label="New label" name="label" error={rename.error}>
          {(p) => <input {...p} value={label} maxLength={48} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <button type="submit" disabled={rename.busy || !label || label === disk.label}>
          Rename
        </button>
      </form>
      <FormErrors error={rename.error} fields={['label']} />
      <form onSubmit={resize.onSubmit} className="grid" noValidate aria-label={`Resize disk ${disk.label}`}>
        <Field label="New size (MB)" name="size" error={resize.error} hint={`Up to ${most} MB: what the plan leaves`}>
          {(p) => <input {...p} type="number" min={1} max={most} value={size} onChange={(e) => setSize(e.target.value)} />}
        </Field>
        <button type="submit" disabled={resize.busy || !size || Number(size) === disk.size}>
          Resize
        </button>
      </form>
      <FormErrors error={resize.error} fields={['size']} />
      <button type="button" className="small" onClick={close}>
        Close
      </button>
    </div>
  );
}

/** A new disk: blank with a filesystem, or an image deployed with a root password. */
function DiskCreate({ node, free, done }: { node: NodeInfo; free: number; done: () => void }) {
  const images = useLoad(() => getAll<{ id: string; label: string; size: number }>('/images'), []);
  const empty = { label: '', size: '', filesystem: 'ext4', image: '', root_pass: '' };
  const [form, setForm] = useState(empty);
  const set = (key: keyof typeof form) => (value: string) => setForm({ ...form, [key]: value });
  const create = useSubmit(
    async () => {
      const body: Record<string, unknown> = { size: Number(form.size) };
      if (form.label) body.label = form.label;
      if (form.image) {
        body.image = form.image;
        body.root_pass = form.root_pass;
      } else {
        body.filesystem = form.filesystem;
      }
      await api.post(`/node/instances/${node.id}/disks`, body);
      setForm(empty);
      done();
    },
    { done: () => (form.label ? `Disk ${form.label} added` : 'Disk added') },
  );
  const image = images.data?.find((i) => i.id === form.image);
  return (
    <form onSubmit={create.onSubmit} className="part-panel" noValidate aria-labelledby="disk-create-title">
      <h3 id="disk-create-title">Add a disk</h3>
      <div className="grid">
        <Field label="Disk label" name="label" error={create.error} hint="Optional">
          {(p) => <input {...p} value={form.label} maxLength={48} onChange={(e) => set('label')(e.target.value)} />}
        </Field>
        <Field
          label="Size (MB)"
          name="size"
          error={create.error}
          hint={`${free} MB free${image ? `; the image needs ${image.size} MB` : ''}`}
        >
          {(p) => (
            <input {...p} type="number" min={1} max={free} value={form.size} onChange={(e) => set('size')(e.target.value)} />
          )}
        </Field>
        <Field label="Source image" name="image" error={create.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.image}
              onChange={set('image')}
              empty="None: a blank disk"
              options={images.data?.map((i) => ({ value: i.id, text: i.label }))}
            />
          )}
        </Field>
        {form.image ? (
          <Field label="Root password for the disk" name="root_pass" error={create.error}>
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="new-password"
                value={form.root_pass}
                onChange={(e) => set('root_pass')(e.target.value)}
              />
            )}
          </Field>
        ) : (
          <Field label="Filesystem" name="filesystem" error={create.error}>
            {(p) => (
              <select {...p} value={form.filesystem} onChange={(e) => set('filesystem')(e.target.value)}>
                {FILESYSTEMS.map((f) => (
                  <option key={f}>{f}</option>
                ))}
              </select>
            )}
          </Field>
        )}
        <button type="submit" disabled={create.busy || !form.size || free <= 0}>
          Add disk
        </button>
      </div>
      <FormErrors error={create.error} fields={['label', 'size', 'image', 'root_pass', 'filesystem']} />
    </form>
  );
}
