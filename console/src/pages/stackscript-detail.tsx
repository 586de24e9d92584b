import { useState } from 'react';
import { useAccess } from '../access.tsx';
import { api } from '../api.ts';
import { deleteAndLeave, useLoad } from '../hooks.ts';
import { FormErrors, Show, Table, useAction, when } from '../ui.tsx';
import { ANY_IMAGE, StackScriptForm } from './stackscript-form.tsx';
import type { StackScript } from './stackscripts.tsx';

/** The node create form with the script chosen, and its image when it fits exactly one. */
export function deployStackScriptHref(script: StackScript): string {
  const [only] = script.images;
  const image = script.images.length === 1 && only !== ANY_IMAGE ? `&image=${encodeURIComponent(only as string)}` : '';
  return `#/nodes/create?stackscript=${script.id}${image}`;
}

export function StackScriptDetail({ id }: { id: number }) {
  const access = useAccess();
  const loaded = useLoad(() => api.get<StackScript>(`/node/stackscripts/${id}`), [id]);
  const [editing, setEditing] = useState(false);
  const remove = useAction(
    async (script: StackScript) => {
      await deleteAndLeave(() => api.del(`/node/stackscripts/${script.id}`), '/stackscripts');
    },
    {
      done: (script) => `StackScript ${script.label} deleted`,
      confirm: (script) => ({
        title: `Delete StackScript ${script.label}?`,
        body: 'The script is deleted. Nodes already deployed with it keep what it did. This cannot be undone.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  return (
    <Show loaded={loaded}>
      {(s) => {
        const writable = s.mine && access.canWrite('stackscript', s.id);
        return (
          <section>
            <header className="page-head">
              <h1>{s.label}</h1>
              <a className="button" href={deployStackScriptHref(s)}>
                Deploy to a new node
              </a>
            </header>
            <p>
              <a href="#/stackscripts">All StackScripts</a>
            </p>
            <dl className="facts">
              <dt>Author</dt>
              <dd>{s.username}</dd>
              <dt>Description</dt>
              <dd>{s.description || '—'}</dd>
              <dt>Images</dt>
              <dd>{s.images.map((i) => (i === ANY_IMAGE ? 'any image' : i)).join(', ')}</dd>
              <dt>Public</dt>
              <dd>{s.is_public ? 'yes' : 'no'}</dd>
              <dt>Deploys</dt>
              <dd>
                {s.deployments_active} active, {s.deployments_total} in all
              </dd>
              <dt>Revision note</dt>
              <dd>{s.rev_note || '—'}</dd>
              <dt>Created</dt>
              <dd>{when(s.created)}</dd>
              <dt>Updated</dt>
              <dd>{when(s.updated)}</dd>
            </dl>
            {writable && (
              <div className="actions">
                <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                  {editing ? 'Close the editor' : 'Edit'}
                </button>
                {!s.is_public && (
                  <button type="button" className="danger" onClick={() => void remove.run(s)}>
                    Delete
                  </button>
                )}
              </div>
            )}
            <FormErrors error={remove.error} />
            {writable && editing && (
              <StackScriptForm
                key={s.updated}
                script={s}
                onSaved={() => {
                  setEditing(false);
                  loaded.reload();
                }}
              />
            )}
            <h2>User-defined fields</h2>
            <Table
              label="User-defined fields"
              rows={s.user_defined_fields}
              rowKey={(f) => f.name}
              empty="This script asks for nothing at deploy."
              columns={[
                { title: 'Name', cell: (f) => <span className="mono">{f.name}</span> },
                { title: 'Label', cell: (f) => f.label },
                { title: 'Example', cell: (f) => f.example || '—' },
                { title: 'Choices', cell: (f) => f.oneof ?? (f.manyof ? `any of ${f.manyof}` : '—') },
                { title: 'Default', cell: (f) => f.default ?? '—' },
              ]}
            />
            <h2>Script</h2>
            <pre className="script">{s.script}</pre>
          </section>
        );
      }}
    </Show>
  );
}
