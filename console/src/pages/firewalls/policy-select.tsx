import { Field } from '../../ui.tsx';
import { POLICIES, type Policy } from './types.ts';

/** A direction's policy: what happens to traffic no rule matches. */
export function PolicySelect({
  label,
  name,
  value,
  onChange,
  error,
}: {
  label: string;
  name: string;
  value: Policy;
  onChange: (policy: Policy) => void;
  error: unknown;
}) {
  return (
    <Field label={label} name={name} error={error} hint="For traffic no rule matches">
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value as Policy)}>
          {POLICIES.map((x) => (
            <option key={x} value={x}>
              {x === 'ACCEPT' ? 'ACCEPT (let it through)' : 'DROP (block it)'}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
