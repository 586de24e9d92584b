import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { ApiError, namesField, type Page } from './api.ts';
import { type Question, useConfirm } from './dialog.tsx';
import type { Loaded, Sort } from './hooks.ts';
import { useToast } from './toast.tsx';

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

export interface ActionOptions<A extends unknown[]> {
  /** What the toast says once it is done ("Node web-1 rebooted"). */
  done: string | ((...args: A) => string);
  /** Asked first, for what destroys or disrupts: the action runs only when confirmed. */
  confirm?: Question | ((...args: A) => Question | null);
}

/** The text of an error for a toast or a page. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `action` on demand: asks first when it must, keeps its error (for the fields it names), says
 * when it is busy, and ends in a toast that says what happened.
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>, options: ActionOptions<A>) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const confirm = useConfirm();
  const say = useToast();
  const run = async (...args: A): Promise<boolean> => {
    const question = typeof options.confirm === 'function' ? options.confirm(...args) : options.confirm;
    if (question && !(await confirm(question))) return false;
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
      say(typeof options.done === 'function' ? options.done(...args) : options.done);
      return true;
    } catch (err) {
      setError(err);
      say(errorText(err), 'failed');
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/** A form whose submit runs `action`. */
export function useSubmit(action: () => Promise<void>, options: ActionOptions<[]>) {
  const state = useAction(action, options);
  const onSubmit = (event?: FormEvent) => {
    event?.preventDefault();
    return state.run();
  };
  return { ...state, onSubmit };
}

export function Pager<T>({ page, setPage }: { page: Page<T> | undefined; setPage: (n: number) => void }) {
  if (!page || page.results === 0) return null;
  if (page.pages <= 1) return <p className="muted">{page.results} in all</p>;
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
  /** The API's field to order by when the column's heading is pressed. */
  orderBy?: string;
}

export function Table<T>({
  rows,
  columns,
  empty,
  label,
  rowKey,
  error,
  retry,
  sort,
}: {
  rows: T[] | undefined;
  columns: Column<T>[];
  empty: string;
  label: string;
  rowKey?: (row: T) => string | number;
  /** Why the rows could not be read: shown with a Retry, never an endless "Loading…". */
  error?: Error | undefined;
  retry?: () => void;
  sort?: Sort;
}) {
  if (error) return <LoadError error={error} retry={retry} />;
  if (!rows) return <p className="muted">Loading…</p>;
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <div className="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => {
              const sorted = sort && c.orderBy !== undefined && sort.by === c.orderBy;
              return (
                <th
                  key={c.title}
                  scope="col"
                  className={c.className}
                  aria-sort={sorted ? (sort.order === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  {sort && c.orderBy !== undefined ? (
                    <button type="button" className="sort" onClick={() => sort.toggle(c.orderBy as string)}>
                      {c.title}
                      <span aria-hidden="true">{sorted ? (sort.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                    </button>
                  ) : (
                    c.title
                  )}
                </th>
              );
            })}
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
  return <span className={`status status-${value.replace(/[^A-Za-z_]/g, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

/** Why something could not be read, with a Retry when it can be read again. */
export function LoadError({ error, retry }: { error: Error | undefined; retry?: (() => void) | undefined }) {
  return error ? (
    <div className="error" role="alert">
      <p>{error.message}</p>
      {retry && (
        <button type="button" className="small" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  ) : null;
}

/** What `loaded` holds, once read; its error with a Retry; "Loading…" only while it is being read. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ReactNode }) {
  if (loaded.error) return <LoadError error={loaded.error} retry={loaded.reload} />;
  if (loaded.data === undefined) return <p className="muted">Loading…</p>;
  return <>{children(loaded.data)}</>;
}

const STAMP = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/** An API timestamp (UTC, without a zone) in the browser's time zone, which it names. */
export function when(stamp: string | null | undefined): string {
  if (!stamp) return '—';
  const date = new Date(`${stamp.replace(' ', 'T')}${/Z|[+-]\d\d:\d\d$/.test(stamp) ? '' : 'Z'}`);
  if (Number.isNaN(date.getTime())) return stamp;
  const part = Object.fromEntries(STAMP.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`;
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

/** A list's search field, above its table ("Search by label"). */
export function SearchBox({ label, value, onChange }: { label: string; value: string; onChange: (text: string) => void }) {
  return (
    <div className="filters">
      <label>
        {label}
        <input type="search" value={value} onChange={(e) => onChange(e.target.value)} />
      </label>
    </div>
  );
}
