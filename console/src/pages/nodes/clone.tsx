import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { go } from '../../router.ts';
import { Choice, Field, FormErrors, useSubmit } from '../../ui.tsx';
import type { ChangeProps } from './changes.tsx';
import { loadRegions, loadTypes, type Node } from './model.ts';
import { PlanField, RegionField } from './plan.tsx';

/**
 * Copies the node's disks and configs to a new node (region, type, label: needs add_nodes) or into
 * another node the user may change (which takes the copies beside its own disks).
 */
export function CloneForm({ node, reload, toNew }: ChangeProps & { toNew: boolean }) {
  const access = useAccess();
  const choices = useLoad(
    () => Promise.all([loadRegions(), loadTypes(), getAll<Pick<Node, 'id' | 'label'>>('/node/instances')]),
    [],
  );
  const [mode, setMode] = useState<'new' | 'existing'>(toNew ? 'new' : 'existing');
  const [form, setForm] = useState({ region: node.region, type: node.type, label: '', node_id: '' });
  const set = (key: keyof typeof form) => (value: string) => setForm({ ...form, [key]: value });
  const [regions, types, nodes] = choices.data ?? [];
  const targets = nodes?.filter((n) => n.id !== node.id && access.canWrite('node', n.id));
  const target = targets?.find((n) => String(n.id) === form.node_id);
  const submit = useSubmit(
    async () => {
      if (mode === 'existing') {
        await api.post(`/node/instances/${node.id}/clone`, { node_id: form.node_id ? Number(form.node_id) : null });
        reload();
        return;
      }
      const body: Record<string, unknown> = { region: form.region, type: form.type };
      if (form.label) body.label = form.label;
      const created = await api.post<Node>(`/node/instances/${node.id}/clone`, body);
      go(`/nodes/${created.id}`);
    },
    {
      done: () => (mode === 'new' ? `Cloning ${node.label} to a new node` : `Cloning ${node.label} into ${target?.label}`),
      confirm: () =>
        mode === 'existing'
          ? {
              title: `Clone ${node.label} into ${target?.label ?? 'that node'}?`,
              body: `Copies of ${node.label}'s disks and configs are added to ${target?.label ?? 'it'}, which is busy until they are written and needs the disk space for them.`,
              action: 'Clone',
            }
          : null,
    },
  );
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Clone the node">
      <fieldset>
        <legend>Clone to</legend>
        {toNew && (
          <label className="check">
            <input type="radio" name="clone-to" checked={mode === 'new'} onChange={() => setMode('new')} /> a new node
          </label>
        )}
        <label className="check">
          <input type="radio" name="clone-to" checked={mode === 'existing'} onChange={() => setMode('existing')} /> one of your
          nodes
        </label>
      </fieldset>
      {mode === 'new' ? (
        <>
          <RegionField options={regions} value={form.region} onChange={set('region')} error={submit.error} />
          <PlanField options={types} value={form.type} onChange={set('type')} error={submit.error} />
          <Field label="Label of the new node" name="label" error={submit.error} hint="Optional">
            {(p) => <input {...p} value={form.label} onChange={(e) => set('label')(e.target.value)} />}
          </Field>
        </>
      ) : (
        <Field label="Node to clone into" name="node_id" error={submit.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.node_id}
              onChange={set('node_id')}
              empty="Choose a node"
              options={targets?.map((n) => ({ value: n.id, text: n.label }))}
            />
          )}
        </Field>
      )}
      <FormErrors error={submit.error} fields={mode === 'new' ? ['region', 'type', 'label'] : ['node_id']} />
      <button type="submit" disabled={submit.busy}>
        Clone
      </button>
    </form>
  );
}
