import { Field } from '../../ui.tsx';
import type { Image, SshKey } from './model.ts';

/** The images a node deploys from: the public ones and the account's own, those that are ready. */
export function ImageSelect({
  images,
  value,
  onChange,
  empty,
  error,
}: {
  images: Image[] | undefined;
  value: string;
  onChange: (id: string) => void;
  empty: string;
  error: unknown;
}) {
  const ready = (images ?? []).filter((i) => i.status === 'available' || i.id === value);
  const groups: [string, Image[]][] = [
    ['Public images', ready.filter((i) => i.is_public)],
    ['Your images', ready.filter((i) => !i.is_public)],
  ];
  return (
    <Field label="Image" name="image" error={error}>
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{empty}</option>
          {groups
            .filter(([, list]) => list.length > 0)
            .map(([title, list]) => (
              <optgroup key={title} label={title}>
                {list.map((i) => (
                  <option key={i.id} value={i.id}>
                    {i.label}
                    {i.deprecated ? ' (deprecated)' : ''}
                  </option>
                ))}
              </optgroup>
            ))}
        </select>
      )}
    </Field>
  );
}

/** The keys to authorize for root: the profile's keys, chosen, and any pasted, one a line. */
export function authorizedKeys(chosen: string[], pasted: string): string[] {
  return [
    ...chosen,
    ...pasted
      .split('\n')
      .map((k) => k.trim())
      .filter(Boolean),
  ];
}

export function SshKeysChoice({
  profileKeys,
  chosen,
  setChosen,
  pasted,
  setPasted,
  error,
}: {
  profileKeys: SshKey[] | undefined;
  chosen: string[];
  setChosen: (keys: string[]) => void;
  pasted: string;
  setPasted: (text: string) => void;
  error: unknown;
}) {
  return (
    <fieldset>
      <legend>SSH keys for root</legend>
      {profileKeys?.length ? (
        profileKeys.map((k) => (
          <label key={k.id} className="check">
            <input
              type="checkbox"
              checked={chosen.includes(k.ssh_key)}
              onChange={(e) => setChosen(e.target.checked ? [...chosen, k.ssh_key] : chosen.filter((x) => x !== k.ssh_key))}
            />{' '}
            {k.label}
          </label>
        ))
      ) : (
        <p className="muted">No SSH keys in your profile.</p>
      )}
      <Field label="Other public keys, one a line" name="authorized_keys" error={error}>
        {(p) => <textarea {...p} rows={2} value={pasted} onChange={(e) => setPasted(e.target.value)} />}
      </Field>
    </fieldset>
  );
}

export function RootPassword({ value, onChange, error }: { value: string; onChange: (v: string) => void; error: unknown }) {
  return (
    <Field label="Root password" name="root_pass" error={error} hint="7 to 128 characters">
      {(p) => (
        <input {...p} type="password" autoComplete="new-password" value={value} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}
