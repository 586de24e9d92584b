import { useState } from 'react';
import { ApiError, api } from '../../api.ts';
import { useEvents, usePaged } from '../../hooks.ts';
import { Field, FormErrors, Pager, SearchBox, Table, useAction, useSubmit, when } from '../../ui.tsx';
import { RenameInPlace } from './rename.tsx';
import { ScopePicker } from './scope-picker.tsx';
import { type ScopeChoice, scopesText, scopesWords } from './scopes.ts';
import { ShownOnce } from './shown-once.tsx';

interface Token {
  id: number;
  label: string;
  scopes: string;
  created: string;
  /** A token that never expires shows a date in the year 2999. */
  expiry: string;
  token: string;
}

/** How long a new token lasts, in days (0: until revoked). */
const EXPIRIES: [number, string][] = [
  [0, 'Never: until revoked'],
  [1, 'In a day'],
  [7, 'In a week'],
  [30, 'In 30 days'],
  [90, 'In 90 days'],
  [365, 'In a year'],
];

function NewTokenForm({ onMade }: { onMade: (token: Token) => void }) {
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<ScopeChoice>({ all: true });
  const [days, setDays] = useState(0);
  const create = useSubmit(
    async () => {
      const text = scopesText(scopes);
      if (!text) throw new ApiError(400, [{ field: 'scopes', reason: 'Choose at least one area, or all of them' }]);
      const expiry = days ? new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 19) : null;
      const token = await api.post<Token>('/profile/tokens', { label, scopes: text, expiry });
      setLabel('');
      setScopes({ all: true });
      setDays(0);
      onMade(token);
    },
    { done: () => `Token ${label} created: copy it now` },
  );
  return (
    <>
      <form onSubmit={create.onSubmit} className="stack" noValidate aria-label="New token">
        <Field label="Label" name="label" error={create.error}>
          {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <ScopePicker
          value={scopes}
          onChange={setScopes}
          error={create.error instanceof ApiError ? create.error.about('scopes') : []}
        />
        <Field label="Expires" name="expiry" error={create.error}>
          {(p) => (
            <select {...p} value={days} onChange={(e) => setDays(Number(e.target.value))}>
              {EXPIRIES.map(([n, text]) => (
                <option key={n} value={n}>
                  {text}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div>
          <button type="submit" disabled={create.busy}>
            Create token
          </button>
        </div>
      </form>
      <FormErrors error={create.error} fields={['label', 'scopes', 'expiry']} />
    </>
  );
}

/** The user's own personal access tokens: made, renamed and revoked here. */
export function TokensPage() {
  const [q, setQ] = useState('');
  const tokens = usePaged<Token>('/profile/tokens', q ? { label: { '+contains': q } } : undefined, {
    by: 'created',
    order: 'desc',
  });
  const [made, setMade] = useState<Token | null>(null);
  useEvents((events) => {
    if (events.some((e) => e.action.startsWith('token_'))) tokens.reload();
  });
  const revoke = useAction(
    async (t: Token) => {
      await api.del(`/profile/tokens/${t.id}`);
      tokens.reload();
    },
    {
      done: (t) => `Token ${t.label} revoked`,
      confirm: (t) => ({
        title: `Revoke token ${t.label}?`,
        body: 'Every program that uses it is refused from now on. This cannot be undone.',
        action: 'Revoke',
        danger: true,
      }),
    },
  );
  return (
    <section>
      <h1>API tokens</h1>
      <p className="muted">Personal access tokens let programs call the API as you, within their scopes.</p>
      {made && <ShownOnce title={`Your new token ${made.label}`} value={made.token} onDone={() => setMade(null)} />}
      <SearchBox label="Search by label" value={q} onChange={setQ} />
      <Table
        label="API tokens"
        rows={tokens.data?.data}
        empty={q ? 'No token matches.' : 'No tokens yet.'}
        error={tokens.error}
        retry={tokens.reload}
        sort={tokens.sort}
        columns={[
          {
            title: 'Label',
            orderBy: 'label',
            cell: (t) => (
              <RenameInPlace
                label={t.label}
                what={`token ${t.label}`}
                save={async (label) => {
                  await api.put(`/profile/tokens/${t.id}`, { label });
                  tokens.reload();
                }}
              />
            ),
          },
          { title: 'Scopes', cell: (t) => scopesWords(t.scopes) },
          { title: 'Created', orderBy: 'created', cell: (t) => when(t.created) },
          { title: 'Expires', cell: (t) => (t.expiry.startsWith('2999-') ? 'never' : when(t.expiry)) },
          {
            title: '',
            cell: (t) => (
              <button
                type="button"
                className="small danger"
                onClick={() => void revoke.run(t)}
                aria-label={`Revoke token ${t.label}`}
              >
                Revoke
              </button>
            ),
          },
        ]}
      />
      <Pager page={tokens.data} setPage={tokens.setPage} />
      <FormErrors error={revoke.error} />
      <h2>New token</h2>
      <NewTokenForm
        onMade={(token) => {
          setMade(token);
          tokens.reload();
        }}
      />
    </section>
  );
}
