import { useEffect, useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { deleteAndLeave, useEvents, useLoad } from '../../hooks.ts';
import { TagsInput } from '../../tags-input.tsx';
import { Field, FormErrors, LoadError, Status, useAction, useSubmit, when } from '../../ui.tsx';
import { FirewallDevices } from './devices.tsx';
import { PolicySelect } from './policy-select.tsx';
import { DirectionRules } from './rules.tsx';
import type { Device, Firewall, Policy, Rules } from './types.ts';

/** `#/firewalls/<id>`: the firewall, its rules in both directions, its policies and its nodes. */
export function FirewallDetail({ id }: { id: number }) {
  const access = useAccess();
  const canWrite = access.canWrite('firewall', id);
  const fw = useLoad(() => api.get<Firewall>(`/networking/firewalls/${id}`), [id]);
  const devices = useLoad(() => getAll<Device>(`/networking/firewalls/${id}/devices`), [id]);
  useEvents((events) => {
    if (events.some((e) => e.entity?.type === 'firewall' && e.entity.id === id)) {
      fw.reload();
      devices.reload();
    } else if (events.some((e) => e.entity?.type === 'node' && e.action === 'node_delete')) devices.reload();
  });
  const label = fw.data?.label ?? 'this firewall';
  const state = useAction(
    async (status: 'enabled' | 'disabled') => {
      await api.put(`/networking/firewalls/${id}`, { status });
      fw.reload();
    },
    {
      done: (status) => `Firewall ${label} ${status}`,
      confirm: (status) =>
        status === 'disabled'
          ? {
              title: `Disable firewall ${label}?`,
              body: `Its rules stop applying to its ${devices.data?.length ?? ''} node(s) at once: all their traffic passes until it is enabled again.`,
              action: 'Disable',
              danger: true,
            }
          : null,
    },
  );
  const remove = useAction(
    async () => {
      await deleteAndLeave(() => api.del(`/networking/firewalls/${id}`), '/firewalls');
    },
    {
      done: () => `Firewall ${label} deleted`,
      confirm: () => ({
        title: `Delete firewall ${label}?`,
        body: 'Its rules come off every node it protects and the firewall is gone. This cannot be undone.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  const saveRules = async (rules: Rules) => {
    await api.put(`/networking/firewalls/${id}/rules`, rules);
    fw.reload();
  };
  if (fw.error) return <LoadError error={fw.error} retry={fw.reload} />;
  const f = fw.data;
  if (!f) return <p className="muted">Loading…</p>;
  return (
    <section className="firewall">
      <p>
        <a href="#/firewalls">Firewalls</a>
      </p>
      <header className="page-head">
        <h1>{f.label}</h1>
        <Status value={f.status} />
      </header>
      {canWrite && (
        <div className="actions">
          {f.status === 'enabled' ? (
            <button type="button" disabled={state.busy} onClick={() => void state.run('disabled')}>
              Disable
            </button>
          ) : (
            <button type="button" disabled={state.busy} onClick={() => void state.run('enabled')}>
              Enable
            </button>
          )}
          <button type="button" className="danger" disabled={remove.busy} onClick={() => void remove.run()}>
            Delete
          </button>
        </div>
      )}
      <FormErrors error={state.error ?? remove.error} />
      <dl className="facts">
        <dt>Inbound policy</dt>
        <dd>{f.rules.inbound_policy}</dd>
        <dt>Outbound policy</dt>
        <dd>{f.rules.outbound_policy}</dd>
        <dt>Tags</dt>
        <dd>{f.tags.join(', ') || '—'}</dd>
        <dt>Created</dt>
        <dd>{when(f.created)}</dd>
        <dt>Updated</dt>
        <dd>{when(f.updated)}</dd>
      </dl>
      <DirectionRules firewall={f} direction="inbound" canWrite={canWrite} save={saveRules} />
      <DirectionRules firewall={f} direction="outbound" canWrite={canWrite} save={saveRules} />
      {canWrite && <FirewallPolicies firewall={f} save={saveRules} />}
      <FirewallDevices firewall={f} devices={devices} canWrite={canWrite} />
      {canWrite && <FirewallSettings firewall={f} reload={fw.reload} />}
    </section>
  );
}

/** The label and tags, saved together (PUT). */
function FirewallSettings({ firewall, reload }: { firewall: Firewall; reload: () => void }) {
  const [label, setLabel] = useState(firewall.label);
  const [tags, setTags] = useState(firewall.tags);
  // What another tab or user saved shows here too.
  useEffect(() => setLabel(firewall.label), [firewall.label]);
  const savedTags = JSON.stringify(firewall.tags);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the tags' text stands for the tags
  useEffect(() => setTags(firewall.tags), [savedTags]);
  const save = useSubmit(
    async () => {
      await api.put(`/networking/firewalls/${firewall.id}`, { label, tags });
      reload();
    },
    { done: () => `Firewall ${label} saved` },
  );
  return (
    <>
      <h2>Label and tags</h2>
      <form onSubmit={save.onSubmit} className="stack" noValidate aria-label="Label and tags">
        <Field label="Label" name="label" error={save.error}>
          {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <TagsInput value={tags} onChange={setTags} />
        <div>
          <button type="submit" disabled={save.busy}>
            Save label and tags
          </button>
        </div>
      </form>
      <FormErrors error={save.error} fields={['label']} />
    </>
  );
}

/** The two policies: what happens to traffic no rule matches. */
function FirewallPolicies({ firewall, save }: { firewall: Firewall; save: (rules: Rules) => Promise<void> }) {
  const [inbound, setInbound] = useState<Policy>(firewall.rules.inbound_policy);
  const [outbound, setOutbound] = useState<Policy>(firewall.rules.outbound_policy);
  useEffect(() => setInbound(firewall.rules.inbound_policy), [firewall.rules.inbound_policy]);
  useEffect(() => setOutbound(firewall.rules.outbound_policy), [firewall.rules.outbound_policy]);
  const submit = useSubmit(() => save({ ...firewall.rules, inbound_policy: inbound, outbound_policy: outbound }), {
    done: () => `Policies of ${firewall.label} saved: inbound ${inbound}, outbound ${outbound}`,
  });
  return (
    <>
      <h2>Policies</h2>
      <form onSubmit={submit.onSubmit} className="grid" noValidate aria-label="Policies">
        <PolicySelect label="Inbound policy" name="inbound_policy" value={inbound} onChange={setInbound} error={submit.error} />
        <PolicySelect
          label="Outbound policy"
          name="outbound_policy"
          value={outbound}
          onChange={setOutbound}
          error={submit.error}
        />
        <button type="submit" disabled={submit.busy}>
          Save policies
        </button>
      </form>
      <FormErrors error={submit.error} fields={['inbound_policy', 'outbound_policy']} />
    </>
  );
}
