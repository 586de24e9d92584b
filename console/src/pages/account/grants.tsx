import { useEffect, useId, useState } from 'react';
import type { AddFlag, Grants, Permission } from '../../access.tsx';
import { api } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { FormErrors, Show, useSubmit } from '../../ui.tsx';
import { userApi } from './user-types.ts';

/** The global grants a restricted user may be given, with what each lets it do. */
const GLOBAL_FLAGS: [AddFlag | 'longview_subscription' | 'cancel_account', string][] = [
  ['add_nodes', 'Create nodes'],
  ['add_domains', 'Create domains'],
  ['add_images', 'Create images'],
  ['add_stackscripts', 'Create StackScripts'],
  ['add_firewalls', 'Create firewalls'],
  ['add_volumes', 'Create volumes'],
  ['add_nodebalancers', 'Create NodeBalancers'],
  ['add_longview', 'Create Longview clients'],
  ['longview_subscription', 'Change the Longview subscription'],
  ['cancel_account', 'Cancel the account'],
];

/** The kinds granted one by one, as the grants object names them, and what the page calls them. */
const KINDS: [string, string][] = [
  ['node', 'Nodes'],
  ['domain', 'Domains'],
  ['image', 'Images'],
  ['stackscript', 'StackScripts'],
  ['firewall', 'Firewalls'],
  ['volume', 'Volumes'],
  ['nodebalancer', 'NodeBalancers'],
  ['longview', 'Longview clients'],
];

interface EntityGrant {
  id: number;
  label: string;
  permissions: Permission | null;
}
type Global = Record<string, boolean | Permission | null>;
type Entities = Record<string, EntityGrant[]>;

const LEVELS: [string, string][] = [
  ['', 'None'],
  ['read_only', 'Read only'],
  ['read_write', 'Read write'],
];

function LevelSelect({
  label,
  value,
  onChange,
}: {
  label: string;
  value: Permission | null;
  onChange: (value: Permission | null) => void;
}) {
  const id = useId();
  return (
    <div className="grant-row">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange((e.target.value || null) as Permission | null)}>
        {LEVELS.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

function entitiesOf(grants: Grants): Entities {
  return Object.fromEntries(KINDS.map(([kind]) => [kind, (grants[kind] as EntityGrant[] | undefined) ?? []]));
}

/** A restricted user's grants as a form: what it may create, its access to the account, its permission on each object. */
function GrantsForm({ username, grants, onSaved }: { username: string; grants: Grants; onSaved: () => void }) {
  const [global, setGlobal] = useState<Global>(grants.global);
  const [entities, setEntities] = useState<Entities>(() => entitiesOf(grants));
  useEffect(() => {
    setGlobal(grants.global);
    setEntities(entitiesOf(grants));
  }, [grants]);
  const save = useSubmit(
    async () => {
      const body: Record<string, unknown> = { global };
      for (const [kind] of KINDS) body[kind] = entities[kind]?.map(({ id, permissions }) => ({ id, permissions }));
      await api.put(`${userApi(username)}/grants`, body);
      onSaved();
    },
    { done: `Grants of ${username} saved` },
  );
  const setLevel = (kind: string, id: number, permissions: Permission | null) =>
    setEntities({ ...entities, [kind]: (entities[kind] ?? []).map((g) => (g.id === id ? { ...g, permissions } : g)) });
  const setAll = (kind: string, permissions: Permission | null) =>
    setEntities({ ...entities, [kind]: (entities[kind] ?? []).map((g) => ({ ...g, permissions })) });
  return (
    <form onSubmit={save.onSubmit} noValidate aria-label={`Grants of ${username}`} className="grants-form">
      <fieldset>
        <legend>What {username} may create and do</legend>
        <div className="grant-flags">
          {GLOBAL_FLAGS.map(([flag, text]) => (
            <label key={flag} className="check">
              <input
                type="checkbox"
                name={flag}
                checked={global[flag] === true}
                onChange={(e) => setGlobal({ ...global, [flag]: e.target.checked })}
              />
              {text}
            </label>
          ))}
        </div>
        <LevelSelect
          label="Account access (account details, OAuth clients)"
          value={(global.account_access as Permission | null) ?? null}
          onChange={(level) => setGlobal({ ...global, account_access: level })}
        />
      </fieldset>
      {KINDS.map(([kind, title]) => {
        const list = entities[kind] ?? [];
        if (list.length === 0) return null;
        return (
          <fieldset key={kind}>
            <legend>{title}</legend>
            {list.length > 1 && (
              <div className="actions grant-all">
                {LEVELS.map(([level, text]) => (
                  <button
                    key={level}
                    type="button"
                    className="small"
                    onClick={() => setAll(kind, (level || null) as Permission | null)}
                  >
                    All {title.toLowerCase()}: {text.toLowerCase()}
                  </button>
                ))}
              </div>
            )}
            {list.map((g) => (
              <LevelSelect
                key={g.id}
                label={g.label || `#${g.id}`}
                value={g.permissions}
                onChange={(level) => setLevel(kind, g.id, level)}
              />
            ))}
          </fieldset>
        );
      })}
      {KINDS.every(([kind]) => (entities[kind] ?? []).length === 0) && (
        <p className="muted">The account has no nodes, domains, images or other objects to grant yet.</p>
      )}
      <button type="submit" disabled={save.busy}>
        Save grants
      </button>
      <FormErrors error={save.error} />
    </form>
  );
}

/** A restricted user's grants, as they are now, to change. */
export function GrantsEditor({ username }: { username: string }) {
  const grants = useLoad(() => api.get<Grants>(`${userApi(username)}/grants`), [username]);
  return (
    <>
      <h2>Grants</h2>
      <Show loaded={grants}>{(g) => <GrantsForm username={username} grants={g} onSaved={grants.reload} />}</Show>
    </>
  );
}
