import { useState } from 'react';
import { ApiError, api, getAll } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { Field, FormErrors, useSubmit } from '../ui.tsx';
import type { StackScript } from './stackscripts.tsx';

/** In a script's images: it deploys to any image. */
export const ANY_IMAGE = 'any/all';

const FIELDS = ['label', 'description', 'images', 'script', 'is_public', 'rev_note'];

/** The images a script may name: any, the public ones and the account's available ones. */
function useImageChoices() {
  return useLoad(async () => {
    const images = await getAll<{ id: string; label: string; status: string; is_public: boolean }>('/images');
    return [
      { id: ANY_IMAGE, label: 'Any image' },
      ...images.filter((i) => i.is_public || i.status === 'available').map((i) => ({ id: i.id, label: i.label })),
    ];
  }, []);
}

/**
 * Creates a StackScript (no `script` given) or edits one: label, description, the images it fits,
 * the script, a revision note and whether it is public (which cannot be undone: it asks first).
 */
export function StackScriptForm({ script, onSaved }: { script?: StackScript; onSaved: (saved: StackScript) => void }) {
  const choices = useImageChoices();
  const [form, setForm] = useState({
    label: script?.label ?? '',
    description: script?.description ?? '',
    images: script?.images ?? [],
    script: script?.script ?? '#!/bin/sh\n',
    is_public: script?.is_public ?? false,
    rev_note: '',
  });
  const goingPublic = form.is_public && !script?.is_public;
  const save = useSubmit(
    async () => {
      const body = { ...form, ...(form.rev_note ? {} : { rev_note: undefined }) };
      const saved = script
        ? await api.put<StackScript>(`/node/stackscripts/${script.id}`, body)
        : await api.post<StackScript>('/node/stackscripts', body);
      onSaved(saved);
    },
    {
      done: () => (script ? `StackScript ${form.label} saved` : `StackScript ${form.label} created`),
      confirm: () =>
        goingPublic
          ? {
              title: `Make StackScript ${form.label || 'this script'} public?`,
              body: 'Every account can then see and deploy it. A public StackScript cannot be made private again, nor deleted.',
              action: 'Make public',
            }
          : null,
    },
  );
  const toggleImage = (id: string, on: boolean) =>
    setForm({ ...form, images: on ? [...form.images, id] : form.images.filter((i) => i !== id) });
  const imagesError = save.error instanceof ApiError ? save.error.about('images') : [];
  const name = script ? `Edit StackScript ${script.label}` : 'New StackScript';
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label={name}>
      <h2>{name}</h2>
      <div className="grid">
        <Field label="Label" name="label" error={save.error}>
          {(p) => <input {...p} value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />}
        </Field>
        <div className="wide">
          <Field label="Description" name="description" error={save.error}>
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
        <fieldset className="choices wide" aria-describedby={imagesError.length > 0 ? 'ss-images-error' : undefined}>
          <legend>Images it fits</legend>
          {choices.data?.map((i) => (
            <label key={i.id} className="check">
              <input type="checkbox" checked={form.images.includes(i.id)} onChange={(e) => toggleImage(i.id, e.target.checked)} />
              {i.label}
            </label>
          )) ?? <span className="muted">Loading images…</span>}
        </fieldset>
        {imagesError.length > 0 && (
          <p className="field-error wide" id="ss-images-error" data-field="images">
            {imagesError.join('; ')}
          </p>
        )}
        <div className="wide">
          <Field
            label="Script"
            name="script"
            error={save.error}
            hint='Starts with #! (an interpreter). <UDF name="…" label="…"> tags ask for values at deploy.'
          >
            {(p) => (
              <textarea
                {...p}
                className="script"
                spellCheck={false}
                value={form.script}
                onChange={(e) => setForm({ ...form, script: e.target.value })}
              />
            )}
          </Field>
        </div>
        <div className="wide">
          <Field label="Revision note" name="rev_note" error={save.error}>
            {(p) => <input {...p} value={form.rev_note} onChange={(e) => setForm({ ...form, rev_note: e.target.value })} />}
          </Field>
        </div>
        <label className="check wide">
          <input
            type="checkbox"
            name="is_public"
            checked={form.is_public}
            disabled={script?.is_public}
            onChange={(e) => setForm({ ...form, is_public: e.target.checked })}
          />
          Public: every account may see and deploy it{script?.is_public ? ' (it is, for good)' : ''}
        </label>
      </div>
      <FormErrors error={save.error} fields={FIELDS} />
      <div className="panel-buttons">
        <button type="submit" disabled={save.busy}>
          {script ? 'Save' : 'Create StackScript'}
        </button>
      </div>
    </form>
  );
}
