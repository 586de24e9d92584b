import { useState } from 'react';
import { api, uploadFile } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { Field, FormErrors, useSubmit } from '../ui.tsx';
import type { Image } from './images.tsx';
import { loadRegions } from './nodes/model.ts';
import { RegionField } from './nodes/plan.tsx';

/**
 * Uploads a gzip-compressed disk image: the API makes a pending image and an upload URL, the file
 * goes there with its progress shown; the image becomes available once the service has processed it.
 */
export function ImageUpload({ onStarted }: { onStarted: () => void }) {
  const regions = useLoad(loadRegions, []);
  const [form, setForm] = useState({ label: '', region: '', description: '' });
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const upload = useSubmit(
    async () => {
      if (!file) throw new Error('Choose a gzip-compressed disk image to upload');
      const started = await api.post<{ image: Image; upload_to: string }>('/images/upload', {
        label: form.label,
        region: form.region,
        ...(form.description ? { description: form.description } : {}),
      });
      onStarted();
      setProgress({ sent: 0, total: file.size });
      await uploadFile(started.upload_to, file, (sent, total) => setProgress({ sent, total }));
      setForm({ ...form, label: '', description: '' });
      onStarted();
    },
    { done: () => `Uploaded ${form.label}: it becomes available once processed` },
  );
  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <>
      <h2>Upload an image</h2>
      <form onSubmit={upload.onSubmit} className="grid" noValidate aria-label="Upload an image">
        <Field label="Label" name="label" error={upload.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <RegionField
          options={regions.data}
          value={form.region}
          onChange={(region) => setForm({ ...form, region })}
          error={upload.error}
        />
        <Field label="Image file (.img.gz)" name="file" error={upload.error}>
          {(p) => (
            <input {...p} type="file" accept=".gz,application/gzip" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          )}
        </Field>
        <div className="wide">
          <Field label="Description (optional)" name="description" error={upload.error}>
            {(p) => (
              <textarea
                {...p}
                rows={2}
                value={form.description}
                onChange={(e) => setForm({ ...form, description: e.target.value })}
              />
            )}
          </Field>
        </div>
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
      <FormErrors error={upload.error} fields={['label', 'region', 'description']} />
    </>
  );
}
