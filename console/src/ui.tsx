import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { ApiError, namesField, type Page } from './api.ts';

/** The API's errors that name no field of the form, or a field it does not show. */
export function FormErrors({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  const items =
    error instanceof ApiError
      ? error.errors
          .filter((e) => !fields.some((field) => namesField(e.field, field)))
          .map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason))
      : [(error as Error).message];
  if (items.length === 0) return null;
  return (
    <div className="error" role="alert">
      {items.map((text) => (
        <p key={text}>{text}</p>
      ))}
    </div>
  );
}

/** A labelled input with the API's reasons about its field shown under it. */
export function Field({
  label,
  name,
  error,
  children,
  hint,
}: {
  label: string;
  name: string;
  error: unknown;
  hint?: string;
  children: (props: { id: string; name: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const reasons = error instanceof ApiError ? error.about(name) : [];
  const describedBy = reasons.length > 0 ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, name, 'aria-invalid': reasons.length > 0, ...(describedBy ? { 'aria-describedby': describedBy } : {}) })}
      {hint && <small>{hint}</small>}
      {reasons.length > 0 && (
        <p className="field-error" id={describedBy} data-field={name}>
          {reasons.join('; ')}
        </p>
      )}
    </div>
  );
}

/** Runs `action` on demand, keeping its error (for the fields it names) and saying when it is busy. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/** A form whose submit runs `action`. */
export function useSubmit(action: () => Promise<void>) {
  const state = useAction(action);
  const onSubmit = (event?: FormEvent) => {
    event?.preventDefault();
    return state.run();
  };
  return { ...state, onSubmit };
}

export function Pager<T>({ page, setPage }: { page: Page<T> | undefined; setPage: (n: number) => void }) {
  if (!page || page.pages <= 1) return page ? <p className="muted">{page.results} in all</p> : null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page.page <= 1} onClick={() => setPage(page.page - 1)}>
        Previous
      </button>
      <span>
        Page {page.page} of {page.pages} ({page.results} in all)
      </span>
      <button type="button" disabled={page.page >= page.pages} onClick={() => setPage(page.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export interface Column<T> {
  title: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

export function Table<T>({
  rows,
  columns,
  empty,
  label,
  rowKey,
}: {
  rows: T[] | undefined;
  columns: Column<T>[];
  empty: string;
  label: string;
  rowKey?: (row: T) => string | number;
}) {
  if (!rows) return <p className="muted">Loading…</p>;
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <div className="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.title} scope="col" className={c.className}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey ? rowKey(row) : ((row as { id?: number | string }).id ?? i)}>
              {columns.map((c) => (
                <td key={c.title} data-title={c.title} className={c.className}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Status({ value }: { value: string }) {
  return <span className={`status status-${value.replace(/[^a-z_]/g, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

export function LoadError({ error }: { error: Error | undefined }) {
  return error ? (
    <p className="error" role="alert">
      {error.message}
    </p>
  ) : null;
}

export function when(stamp: string | null | undefined): string {
  return stamp ? stamp.replace('T', ' ') : '—';
}

/** A select of `options` (value and text) led by an empty choice that says what to pick. */
export function Choice({
  options,
  empty,
  value,
  onChange,
  ...props
}: {
  options: { value: string | number; text: string }[] | undefined;
  empty: string;
  value: string;
  onChange: (value: string) => void;
  id?: string;
  name?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  return (
    <select {...props} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{empty}</option>
      {options?.map((o) => (
        <option key={o.value} value={o.value}>
          {o.text}
        </option>
      ))}
    </select>
  );
}
