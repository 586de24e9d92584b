import { type KeyboardEvent, useId, useState } from 'react';
import { getAll } from './api.ts';
import { useLoad } from './hooks.ts';

/**
 * The tags of an object as removable chips, and a field that adds one on Enter or comma, offering the
 * account's tags as it is typed. Controlled: `value` is the list, `onChange` gets the new one.
 */
export function TagsInput({
  value,
  onChange,
  label = 'Tags',
  disabled = false,
}: {
  value: string[];
  onChange: (tags: string[]) => void;
  label?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const known = useLoad(() => getAll<{ label: string }>('/tags'), []);
  const add = (raw: string) => {
    const tag = raw.trim();
    setText('');
    if (tag && !value.includes(tag)) onChange([...value, tag]);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(text);
    } else if (event.key === 'Backspace' && text === '' && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  };
  return (
    <div className="field tags-input">
      <label htmlFor={id}>{label}</label>
      <ul className="chips" aria-label={`${label} chosen`}>
        {value.map((tag) => (
          <li key={tag} className="chip">
            {tag}
            {!disabled && (
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(value.filter((t) => t !== tag))}
              >
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      {!disabled && (
        <>
          <input
            id={id}
            list={`${id}-known`}
            value={text}
            placeholder="Add a tag, then Enter"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={onKeyDown}
            onBlur={() => add(text)}
          />
          <datalist id={`${id}-known`}>
            {known.data
              ?.filter((t) => !value.includes(t.label))
              .map((t) => (
                <option key={t.label} value={t.label} />
              ))}
          </datalist>
        </>
      )}
    </div>
  );
}
