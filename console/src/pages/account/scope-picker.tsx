import { useId } from 'react';
import { type Level, SCOPE_AREAS, type ScopeArea, type ScopeChoice } from './scopes.ts';

/** What a new token may do: everything, or a level for each area of the API. */
export function ScopePicker({
  value,
  onChange,
  error,
}: {
  value: ScopeChoice;
  onChange: (choice: ScopeChoice) => void;
  /** The API's reasons about the scopes. */
  error: string[];
}) {
  const id = useId();
  const levels = value.all ? {} : value.levels;
  const setLevel = (area: ScopeArea, level: Level) => onChange({ all: false, levels: { ...levels, [area]: level } });
  return (
    <fieldset className="scope-picker" aria-describedby={error.length > 0 ? `${id}-error` : undefined}>
      <legend>Scopes</legend>
      <label className="check">
        <input type="radio" name="scope-kind" checked={value.all} onChange={() => onChange({ all: true })} />
        All areas, read and write (*)
      </label>
      <label className="check">
        <input
          type="radio"
          name="scope-kind"
          checked={!value.all}
          onChange={() => onChange({ all: false, levels: { ...levels } })}
        />
        Chosen areas only
      </label>
      {!value.all && (
        <div className="scope-areas">
          {SCOPE_AREAS.map(([area, title]) => (
            <div className="grant-row" key={area}>
              <label htmlFor={`${id}-${area}`}>{title}</label>
              <select id={`${id}-${area}`} value={levels[area] ?? ''} onChange={(e) => setLevel(area, e.target.value as Level)}>
                <option value="">None</option>
                <option value="read_only">Read only</option>
                <option value="read_write">Read write</option>
              </select>
            </div>
          ))}
        </div>
      )}
      {error.length > 0 && (
        <p className="field-error" id={`${id}-error`} data-field="scopes">
          {error.join('; ')}
        </p>
      )}
    </fieldset>
  );
}
