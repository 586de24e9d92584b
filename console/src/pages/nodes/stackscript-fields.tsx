import { ApiError } from '../../api.ts';
import { Field } from '../../ui.tsx';
import type { StackScript, UserDefinedField } from './model.ts';

/** The StackScripts that deploy to `image`: each lists its images, or `any/all`. */
export function fitting(scripts: StackScript[], image: string): StackScript[] {
  return scripts.filter((s) => s.images.includes('any/all') || (image !== '' && s.images.includes(image)));
}

/** The values a script's fields start with: their defaults. */
export function defaultsOf(script: StackScript | undefined): Record<string, string> {
  return Object.fromEntries((script?.user_defined_fields ?? []).map((f) => [f.name, f.default ?? '']));
}

/** What is sent as stackscript_data: the filled fields; an empty one is left to its default (or refused when required). */
export function stackscriptData(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
}

const options = (list: string) => list.split(',').map((o) => o.trim());
/** A field whose name or label speaks of a password is typed as one. */
const secret = (f: UserDefinedField) => /pass(word)?|secret|token/i.test(`${f.name} ${f.label}`);

/** The script's user-defined fields: text, password, a choice from oneof, several from manyof. */
export function StackScriptFields({
  script,
  values,
  onChange,
  error,
}: {
  script: StackScript;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  error: unknown;
}) {
  const fields = script.user_defined_fields;
  if (fields.length === 0) return <p className="muted">{script.label} asks for nothing.</p>;
  const set = (name: string, value: string) => onChange({ ...values, [name]: value });
  return (
    <fieldset className="udf">
      <legend>{script.label}: its fields</legend>
      {fields.map((f) => {
        const name = `stackscript_data.${f.name}`;
        const label = f.default === undefined ? `${f.label} (required)` : f.label;
        const value = values[f.name] ?? '';
        if (f.manyof !== undefined) {
          const chosen = value === '' ? [] : options(value);
          const reasons = error instanceof ApiError ? error.about(name) : [];
          return (
            <fieldset key={f.name} className="udf-many">
              <legend>{label}</legend>
              {options(f.manyof).map((o) => (
                <label key={o} className="check">
                  <input
                    type="checkbox"
                    checked={chosen.includes(o)}
                    onChange={(e) =>
                      set(
                        f.name,
                        options(f.manyof ?? '')
                          .filter((x) => (x === o ? e.target.checked : chosen.includes(x)))
                          .join(','),
                      )
                    }
                  />{' '}
                  {o}
                </label>
              ))}
              {reasons.length > 0 && (
                <p className="field-error" data-field={name}>
                  {reasons.join('; ')}
                </p>
              )}
            </fieldset>
          );
        }
        return (
          <Field key={f.name} label={label} name={name} error={error} hint={f.example ? `e.g. ${f.example}` : undefined}>
            {(p) =>
              f.oneof !== undefined ? (
                <select {...p} value={value} onChange={(e) => set(f.name, e.target.value)}>
                  {f.default === undefined && <option value="">Choose one</option>}
                  {f.default === '' && <option value="">None</option>}
                  {options(f.oneof).map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  {...p}
                  type={secret(f) ? 'password' : 'text'}
                  autoComplete={secret(f) ? 'new-password' : 'off'}
                  value={value}
                  onChange={(e) => set(f.name, e.target.value)}
                />
              )
            }
          </Field>
        );
      })}
    </fieldset>
  );
}
