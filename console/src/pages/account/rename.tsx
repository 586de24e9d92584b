import { useState } from 'react';
import { Field, FormErrors, useSubmit } from '../../ui.tsx';

/**
 * An object's label with a Rename button that turns it into a small form in place: for lists whose
 * objects have nothing else to edit (tokens, SSH keys).
 */
export function RenameInPlace({
  label,
  what,
  save,
  canRename = true,
}: {
  label: string;
  /** The object as a phrase for names and toasts: "token deploy". */
  what: string;
  save: (label: string) => Promise<void>;
  canRename?: boolean;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(label);
  const submit = useSubmit(
    async () => {
      await save(value);
      setEditing(false);
    },
    { done: () => `Renamed ${what} to ${value}` },
  );
  if (!editing) {
    return (
      <span className="rename">
        <span>{label}</span>
        {canRename && (
          <button
            type="button"
            className="small"
            aria-label={`Rename ${what}`}
            onClick={() => {
              setValue(label);
              setEditing(true);
            }}
          >
            Rename
          </button>
        )}
      </span>
    );
  }
  return (
    <form className="rename-form" onSubmit={submit.onSubmit} noValidate aria-label={`Rename ${what}`}>
      <Field label="New label" name="label" error={submit.error}>
        {(p) => (
          // biome-ignore lint/a11y/noAutofocus: the user just asked to edit this very label
          <input {...p} autoFocus value={value} onChange={(e) => setValue(e.target.value)} />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="small" disabled={submit.busy}>
          Save
        </button>
        <button type="button" className="small" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
      <FormErrors error={submit.error} fields={['label']} />
    </form>
  );
}
