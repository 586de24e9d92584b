import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { go } from '../../router.ts';
import { TagsInput } from '../../tags-input.tsx';
import { Field, FormErrors, LoadError, useSubmit } from '../../ui.tsx';
import { PolicySelect } from './policy-select.tsx';
import type { Firewall, NodeChoice, Policy } from './types.ts';

/** `#/firewalls/create`: a label, tags, the two policies and the nodes it starts on. */
export function FirewallCreate() {
  const access = useAccess();
  const nodes = useLoad(() => getAll<NodeChoice>('/node/instances'), []);
  const [label, setLabel] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [inbound, setInbound] = useState<Policy>('DROP');
  const [outbound, setOutbound] = useState<Policy>('ACCEPT');
  const [chosen, setChosen] = useState<number[]>([]);
  const create = useSubmit(
    async () => {
      const fw = await api.post<Firewall>('/networking/firewalls', {
        label,
        tags,
        rules: { inbound_policy: inbound, outbound_policy: outbound },
        ...(chosen.length > 0 ? { devices: { nodes: chosen } } : {}),
      });
      go(`/firewalls/${fw.id}`);
    },
    { done: () => `Firewall ${label} created` },
  );
  const toggle = (id: number) => setChosen((now) => (now.includes(id) ? now.filter((n) => n !== id) : [...now, id]));
  // The profile is still being read: no answer yet either way.
  if (access.username === '') return <p className="muted">Loading…</p>;
  if (!access.canAdd('add_firewalls')) {
    return (
      <section>
        <h1>Create a firewall</h1>
        <p className="muted">You may not create firewalls: ask the account's administrator for the grant.</p>
      </section>
    );
  }
  return (
    <section>
      <h1>Create a firewall</h1>
      <p>
        <a href="#/firewalls">Back to the firewalls</a>
      </p>
      <form onSubmit={create.onSubmit} className="stack" noValidate aria-label="Create a firewall">
        <Field label="Label" name="label" error={create.error} hint="3-32 letters, digits, - _ and .">
          {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <TagsInput value={tags} onChange={setTags} />
        <PolicySelect
          label="Inbound policy"
          name="rules.inbound_policy"
          value={inbound}
          onChange={setInbound}
          error={create.error}
        />
        <PolicySelect
          label="Outbound policy"
          name="rules.outbound_policy"
          value={outbound}
          onChange={setOutbound}
          error={create.error}
        />
        <fieldset className="fw-nodes">
          <legend>Nodes to protect (optional)</legend>
          <LoadError error={nodes.error} retry={nodes.reload} />
          {nodes.data?.length === 0 && <p className="muted">No nodes yet: add them to the firewall later.</p>}
          {nodes.data?.map((n) => (
            <label key={n.id} className="check">
              <input type="checkbox" checked={chosen.includes(n.id)} onChange={() => toggle(n.id)} /> {n.label}
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit" disabled={create.busy}>
            Create firewall
          </button>
        </div>
      </form>
      <FormErrors error={create.error} fields={['label', 'rules.inbound_policy', 'rules.outbound_policy']} />
    </section>
  );
}
