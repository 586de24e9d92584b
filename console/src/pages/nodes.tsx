import { useState } from 'react';
import { api, getAll } from '../api.ts';
import { type ApiEvent, useEvents, useLoad, usePaged } from '../hooks.ts';
import { go } from '../router.ts';
import { Choice, Field, FormErrors, LoadError, Pager, Status, Table, useAction, useSubmit, when } from '../ui.tsx';

export interface Node {
  id: number;
  label: string;
  status: string;
  region: string;
  type: string;
  image: string | null;
  ipv4: string[];
  ipv6: string | null;
  tags: string[];
  created: string;
}

/** Reloads when an event about a node (or one of `ids`) arrives: its status moves with them. */
function useNodeEvents(reload: () => void, ids?: number[]): void {
  useEvents((events: ApiEvent[]) => {
    if (events.some((e) => e.entity?.type === 'node' && (!ids || ids.includes(e.entity.id)))) reload();
  });
}

export function NodesList() {
  const [label, setLabel] = useState('');
  const [region, setRegion] = useState('');
  const [tag, setTag] = useState('');
  const filter: Record<string, unknown> = {};
  if (label) filter.label = { '+contains': label };
  if (region) filter.region = region;
  if (tag) filter.tags = tag;
  const nodes = usePaged<Node>('/node/instances', filter);
  const regions = useLoad(() => getAll<{ id: string; country: string }>('/regions'), []);
  useNodeEvents(nodes.reload);
  return (
    <section>
      <header className="page-head">
        <h1>Nodes</h1>
        <a className="button" href="#/nodes/create">
          Create a node
        </a>
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter nodes">
        <label>
          Label contains <input value={label} onChange={(e) => setLabel(e.target.value)} name="label" />
        </label>
        <label>
          Region{' '}
          <select value={region} onChange={(e) => setRegion(e.target.value)} name="region">
            <option value="">any</option>
            {regions.data?.map((r) => (
              <option key={r.id} value={r.id}>
                {r.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tag <input value={tag} onChange={(e) => setTag(e.target.value)} name="tag" />
        </label>
      </form>
      <LoadError error={nodes.error} />
      <Table
        label="Nodes"
        rows={nodes.data?.data}
        empty="No nodes yet."
        columns={[
          { title: 'Label', cell: (n) => <a href={`#/nodes/${n.id}`}>{n.label}</a> },
          { title: 'Status', cell: (n) => <Status value={n.status} /> },
          { title: 'Region', cell: (n) => n.region },
          { title: 'Type', cell: (n) => n.type },
          { title: 'Addresses', cell: (n) => [...n.ipv4, n.ipv6 ?? ''].filter(Boolean).join(', ') },
          { title: 'Tags', cell: (n) => n.tags.join(', ') },
        ]}
      />
      <Pager page={nodes.data} setPage={nodes.setPage} />
    </section>
  );
}

interface Disk {
  id: number;
  label: string;
  size: number;
  filesystem: string;
  status: string;
}
interface Config {
  id: number;
  label: string;
  kernel: string;
  root_device: string;
}
interface Backups {
  automatic: { id: number; label: string | null; status: string; created: string }[];
  snapshot: { current: { id: number; label: string | null; status: string } | null; in_progress: unknown };
}
interface Ips {
  ipv4: { public: { address: string; rdns: string | null }[]; private: { address: string }[] };
  ipv6: { slaac: { address: string } | null; link_local: { address: string } | null };
}

export function NodeDetail({ id }: { id: number }) {
  const node = useLoad(() => api.get<Node>(`/node/instances/${id}`), [id]);
  const parts = useLoad(
    () =>
      Promise.all([
        getAll<Disk>(`/node/instances/${id}/disks`),
        getAll<Config>(`/node/instances/${id}/configs`),
        api.get<Backups>(`/node/instances/${id}/backups`),
        api.get<Ips>(`/node/instances/${id}/ips`),
        getAll<{ id: number; label: string; status: string }>(`/node/instances/${id}/firewalls`),
      ]),
    [id],
  );
  useNodeEvents(() => {
    node.reload();
    parts.reload();
  }, [id]);
  const act = useAction(async (action: string) => {
    if (action === 'delete') {
      await api.del(`/node/instances/${id}`);
      go('/nodes');
      return;
    }
    await api.post(`/node/instances/${id}/${action}`);
    node.reload();
  });
  const run = (name: string) => {
    if (name === 'delete' && !window.confirm('Delete this node and its disks?')) return;
    void act.run(name);
  };
  if (node.error) return <LoadError error={node.error} />;
  const n = node.data;
  if (!n) return <p className="muted">Loading…</p>;
  const [disks, configs, backups, ips, firewalls] = parts.data ?? [];
  return (
    <section>
      <header className="page-head">
        <h1>{n.label}</h1>
        <Status value={n.status} />
      </header>
      <fieldset className="actions">
        <legend className="visually-hidden">Power</legend>
        <button type="button" onClick={() => run('boot')} disabled={act.busy}>
          Boot
        </button>
        <button type="button" onClick={() => run('shutdown')} disabled={act.busy}>
          Shut down
        </button>
        <button type="button" onClick={() => run('reboot')} disabled={act.busy}>
          Reboot
        </button>
        <button type="button" className="danger" onClick={() => run('delete')} disabled={act.busy}>
          Delete
        </button>
      </fieldset>
      <FormErrors error={act.error} />
      <dl className="facts">
        <dt>Region</dt>
        <dd>{n.region}</dd>
        <dt>Type</dt>
        <dd>{n.type}</dd>
        <dt>Image</dt>
        <dd>{n.image ?? '—'}</dd>
        <dt>Tags</dt>
        <dd>{n.tags.join(', ') || '—'}</dd>
        <dt>Created</dt>
        <dd>{when(n.created)}</dd>
      </dl>
      <h2>Addresses</h2>
      <ul>
        {ips?.ipv4.public.map((a) => (
          <li key={a.address}>
            {a.address} (public{a.rdns ? `, ${a.rdns}` : ''})
          </li>
        ))}
        {ips?.ipv4.private.map((a) => (
          <li key={a.address}>{a.address} (private)</li>
        ))}
        {ips?.ipv6.slaac && <li>{ips.ipv6.slaac.address} (SLAAC)</li>}
      </ul>
      <h2>Disks</h2>
      <Table
        label="Disks"
        rows={disks}
        empty="No disks."
        columns={[
          { title: 'Label', cell: (d) => d.label },
          { title: 'Size (MB)', cell: (d) => d.size },
          { title: 'Filesystem', cell: (d) => d.filesystem },
          { title: 'Status', cell: (d) => <Status value={d.status} /> },
        ]}
      />
      <h2>Configs</h2>
      <Table
        label="Configs"
        rows={configs}
        empty="No configs."
        columns={[
          { title: 'Label', cell: (c) => c.label },
          { title: 'Kernel', cell: (c) => c.kernel },
          { title: 'Root device', cell: (c) => c.root_device },
        ]}
      />
      <h2>Backups</h2>
      <Table
        label="Backups"
        rows={
          backups
            ? [...backups.automatic, ...(backups.snapshot.current ? [{ ...backups.snapshot.current, created: '' }] : [])]
            : undefined
        }
        empty="No backups."
        columns={[
          { title: 'Label', cell: (b) => b.label ?? '—' },
          { title: 'Status', cell: (b) => <Status value={b.status} /> },
        ]}
      />
      <h2>Firewalls</h2>
      <Table
        label="Firewalls"
        rows={firewalls}
        empty="No firewall protects this node."
        columns={[
          { title: 'Label', cell: (f) => <a href={`#/firewalls/${f.id}`}>{f.label}</a> },
          { title: 'Status', cell: (f) => <Status value={f.status} /> },
        ]}
      />
    </section>
  );
}

export function NodeCreate() {
  const choices = useLoad(
    () =>
      Promise.all([
        getAll<{ id: string; country: string }>('/regions'),
        getAll<{ id: string; label: string }>('/node/types'),
        getAll<{ id: string; label: string }>('/images', { is_public: true }),
        getAll<{ id: number; label: string; ssh_key: string }>('/profile/sshkeys'),
      ]),
    [],
  );
  const [form, setForm] = useState({ label: '', region: '', type: '', image: '', root_pass: '' });
  const [keys, setKeys] = useState<string[]>([]);
  const [pastedKeys, setPastedKeys] = useState('');
  const submit = useSubmit(async () => {
    const body: Record<string, unknown> = { region: form.region, type: form.type };
    if (form.label) body.label = form.label;
    if (form.image) body.image = form.image;
    if (form.root_pass) body.root_pass = form.root_pass;
    const authorizedKeys = [
      ...keys,
      ...pastedKeys
        .split('\n')
        .map((k) => k.trim())
        .filter(Boolean),
    ];
    if (authorizedKeys.length) body.authorized_keys = authorizedKeys;
    const created = await api.post<Node>('/node/instances', body);
    go(`/nodes/${created.id}`);
  });
  const set = (key: keyof typeof form) => (value: string) => setForm({ ...form, [key]: value });
  const [regions, types, images, sshKeys] = choices.data ?? [];
  return (
    <section>
      <h1>Create a node</h1>
      <form onSubmit={submit.onSubmit} className="stack" noValidate>
        <Field label="Label" name="label" error={submit.error} hint="Optional; one is made up when left empty">
          {(p) => <input {...p} value={form.label} onChange={(e) => set('label')(e.target.value)} />}
        </Field>
        <Field label="Region" name="region" error={submit.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.region}
              onChange={set('region')}
              empty="Choose a region"
              options={regions?.map((r) => ({ value: r.id, text: `${r.id} (${r.country.toUpperCase()})` }))}
            />
          )}
        </Field>
        <Field label="Type" name="type" error={submit.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.type}
              onChange={set('type')}
              empty="Choose a type"
              options={types?.map((t) => ({ value: t.id, text: `${t.label} (${t.id})` }))}
            />
          )}
        </Field>
        <Field label="Image" name="image" error={submit.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.image}
              onChange={set('image')}
              empty="No image (an empty node)"
              options={images?.map((i) => ({ value: i.id, text: i.label }))}
            />
          )}
        </Field>
        <Field label="Root password" name="root_pass" error={submit.error}>
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              value={form.root_pass}
              onChange={(e) => set('root_pass')(e.target.value)}
            />
          )}
        </Field>
        <fieldset>
          <legend>SSH keys</legend>
          {sshKeys?.length ? (
            sshKeys.map((k) => (
              <label key={k.id} className="check">
                <input
                  type="checkbox"
                  checked={keys.includes(k.ssh_key)}
                  onChange={(e) => setKeys(e.target.checked ? [...keys, k.ssh_key] : keys.filter((x) => x !== k.ssh_key))}
                />{' '}
                {k.label}
              </label>
            ))
          ) : (
            <p className="muted">No SSH keys in your profile.</p>
          )}
          <Field label="Other public keys, one a line" name="authorized_keys" error={submit.error}>
            {(p) => <textarea {...p} rows={2} value={pastedKeys} onChange={(e) => setPastedKeys(e.target.value)} />}
          </Field>
        </fieldset>
        <FormErrors error={submit.error} fields={['label', 'region', 'type', 'image', 'root_pass', 'authorized_keys']} />
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Creating…' : 'Create'}
        </button>
      </form>
    </section>
  );
}
