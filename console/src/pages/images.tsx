import { useState } from 'react';
import { api, getAll, uploadFile } from '../api.ts';
import { useLoad, usePaged } from '../hooks.ts';
import { Choice, Field, FormErrors, LoadError, Pager, Status, Table, useSubmit, when } from '../ui.tsx';

interface Image {
  id: string;
  label: string;
  status: string;
  size: number;
  created: string;
  is_public: boolean;
  type: string;
}

export function ImagesPage() {
  const list = usePaged<Image>('/images', { is_public: false });
  const regions = useLoad(() => getAll<{ id: string }>('/regions'), []);
  const [form, setForm] = useState({ label: '', region: '' });
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [done, setDone] = useState('');
  const upload = useSubmit(async () => {
    setDone('');
    if (!file) throw new Error('Choose a gzip-compressed disk image to upload');
    const started = await api.post<{ image: Image; upload_to: string }>('/images/upload', {
      label: form.label,
      region: form.region,
    });
    setProgress({ sent: 0, total: file.size });
    await uploadFile(started.upload_to, file, (sent, total) => setProgress({ sent, total }));
    setDone(`Uploaded ${started.image.label}`);
    list.reload();
  });
  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <section>
      <h1>Images</h1>
      <LoadError error={list.error} />
      <Table
        label="Your images"
        rows={list.data?.data}
        empty="No images of your own yet."
        columns={[
          { title: 'Label', cell: (i) => i.label },
          { title: 'Status', cell: (i) => <Status value={i.status} /> },
          { title: 'Size (MB)', cell: (i) => i.size },
          { title: 'Created', cell: (i) => when(i.created) },
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
      <h2>Upload an image</h2>
      <form onSubmit={upload.onSubmit} className="grid" noValidate aria-label="Upload an image">
        <Field label="Label" name="label" error={upload.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <Field label="Region" name="region" error={upload.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.region}
              onChange={(region) => setForm({ ...form, region })}
              empty="Choose a region"
              options={regions.data?.map((r) => ({ value: r.id, text: r.id }))}
            />
          )}
        </Field>
        <Field label="Image file (.img.gz)" name="file" error={upload.error}>
          {(p) => (
            <input {...p} type="file" accept=".gz,application/gzip" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          )}
        </Field>
        <button type="submit" disabled={upload.busy}>
          {upload.busy ? 'Uploading…' : 'Upload'}
        </button>
      </form>
      {progress && (
        <div className="progress">
          <progress max={100} value={percent} aria-label="Upload progress" />
          <span>
            {percent}% ({Math.round(progress.sent / 1024)} of {Math.round(progress.total / 1024)} KB)
          </span>
        </div>
      )}
      {done && <p role="status">{done}</p>}
      <FormErrors error={upload.error} fields={['label', 'region']} />
    </section>
  );
}
