import { useState } from 'react';
import { useAccess } from '../access.tsx';
import { usePaged } from '../hooks.ts';
import { go } from '../router.ts';
import { Pager, Table, when } from '../ui.tsx';
import { StackScriptDetail } from './stackscript-detail.tsx';
import { ANY_IMAGE, StackScriptForm } from './stackscript-form.tsx';
import './catalog.css';

export interface UserDefinedField {
  label: string;
  name: string;
  example: string;
  oneof?: string;
  manyof?: string;
  default?: string;
}

export interface StackScript {
  id: number;
  username: string;
  label: string;
  description: string;
  images: string[];
  deployments_total: number;
  deployments_active: number;
  is_public: boolean;
  created: string;
  updated: string;
  rev_note: string;
  script: string;
  user_defined_fields: UserDefinedField[];
  mine: boolean;
}

/** Whose scripts the list shows. */
const WHOSE: Record<string, { text: string; filter: Record<string, unknown> }> = {
  all: { text: 'Mine and public', filter: {} },
  mine: { text: 'Mine', filter: { mine: true } },
  public: { text: 'Public', filter: { is_public: true } },
};

export function StackScriptsList() {
  const access = useAccess();
  const [search, setSearch] = useState('');
  const [whose, setWhose] = useState('all');
  const filter = { ...WHOSE[whose]?.filter, ...(search ? { label: { '+contains': search } } : {}) };
  const list = usePaged<StackScript>('/node/stackscripts', filter, { by: 'label' });
  return (
    <section>
      <header className="page-head">
        <h1>StackScripts</h1>
        {access.canAdd('add_stackscripts') && (
          <a className="button" href="#/stackscripts/create">
            Create a StackScript
          </a>
        )}
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter StackScripts">
        <label>
          Label contains <input value={search} onChange={(e) => setSearch(e.target.value)} name="label" />
        </label>
        <label>
          Whose{' '}
          <select value={whose} onChange={(e) => setWhose(e.target.value)} name="whose">
            {Object.entries(WHOSE).map(([key, { text }]) => (
              <option key={key} value={key}>
                {text}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Table
        label="StackScripts"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        sort={list.sort}
        empty={search || whose !== 'all' ? 'No StackScript matches.' : 'No StackScripts yet.'}
        columns={[
          { title: 'Label', orderBy: 'label', cell: (s) => <a href={`#/stackscripts/${s.id}`}>{s.label}</a> },
          { title: 'Author', cell: (s) => (s.mine ? `${s.username} (mine)` : s.username) },
          { title: 'Images', cell: (s) => s.images.map((i) => (i === ANY_IMAGE ? 'any image' : i)).join(', ') },
          { title: 'Public', orderBy: 'is_public', cell: (s) => (s.is_public ? 'yes' : 'no') },
          { title: 'Deploys', orderBy: 'deployments_total', cell: (s) => `${s.deployments_active} of ${s.deployments_total}` },
          { title: 'Updated', cell: (s) => when(s.updated) },
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
    </section>
  );
}

function StackScriptCreate() {
  return (
    <section>
      <header className="page-head">
        <h1>New StackScript</h1>
        <a href="#/stackscripts">Back to StackScripts</a>
      </header>
      <StackScriptForm onSaved={(saved) => go(`/stackscripts/${saved.id}`)} />
    </section>
  );
}

/** The StackScripts section: `#/stackscripts`, `#/stackscripts/create`, `#/stackscripts/<id>`. */
export function StackScriptsSection({ path }: { path: string[] }) {
  const [id] = path;
  if (id === 'create') return <StackScriptCreate />;
  return id ? <StackScriptDetail id={Number(id)} /> : <StackScriptsList />;
}
