import { useState } from 'react';
import { api } from '../../api.ts';
import { useLoad, usePaged } from '../../hooks.ts';
import { Field, FormErrors, Pager, Table, useSubmit } from '../../ui.tsx';

interface NodeSettings {
  id: number;
  label: string;
  group: string;
  ssh: { access: boolean; user: string; ip: string; port: number };
}

/** The addresses staff may be told to reach a node at: any, or one of its own. */
function useAddresses(id: number) {
  return useLoad(async () => {
    const node = await api.get<{ ipv4: string[]; ipv6: string | null }>(`/node/instances/${id}`);
    return [...node.ipv4, ...(node.ipv6 ? [node.ipv6.replace(/\/\d+$/, '')] : [])];
  }, [id]);
}

function SettingsForm({ settings, onDone }: { settings: NodeSettings; onDone: () => void }) {
  const addresses = useAddresses(settings.id);
  const [form, setForm] = useState({ ...settings.ssh, port: String(settings.ssh.port) });
  const save = useSubmit(
    async () => {
      await api.put(`/managed/node-settings/${settings.id}`, {
        ssh: { access: form.access, user: form.user, ip: form.ip, port: Number(form.port) },
      });
      onDone();
    },
    { done: `SSH settings of ${settings.label} saved` },
  );
  const ips = addresses.data ?? [];
  return (
    <form onSubmit={save.onSubmit} className="panel" noValidate aria-label={`SSH access to ${settings.label}`}>
      <h3>SSH access to {settings.label}</h3>
      <div className="grid">
        <label className="check">
          <input type="checkbox" checked={form.access} onChange={(e) => setForm({ ...form, access: e.target.checked })} />
          Staff may log in
        </label>
        <Field label="User" name="ssh.user" error={save.error}>
          {(p) => <input {...p} value={form.user} onChange={(e) => setForm({ ...form, user: e.target.value })} />}
        </Field>
        <Field label="Address" name="ssh.ip" error={save.error}>
          {(p) => (
            <select {...p} value={form.ip} onChange={(e) => setForm({ ...form, ip: e.target.value })}>
              <option value="any">any of its addresses</option>
              {[...new Set([...ips, ...(form.ip === 'any' ? [] : [form.ip])])].map((ip) => (
                <option key={ip} value={ip}>
                  {ip}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Port" name="ssh.port" error={save.error}>
          {(p) => (
            <input {...p} inputMode="numeric" value={form.port} onChange={(e) => setForm({ ...form, port: e.target.value })} />
          )}
        </Field>
      </div>
      <FormErrors error={save.error} fields={['ssh.user', 'ssh.ip', 'ssh.port']} />
      <div className="panel-buttons">
        <button type="submit" disabled={save.busy}>
          Save SSH settings
        </button>
        <button type="button" className="small" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** How support staff reach each of the account's nodes over SSH. */
export function ManagedNodeSettings({ canWrite }: { canWrite: boolean }) {
  const list = usePaged<NodeSettings>('/managed/node-settings');
  const [editing, setEditing] = useState<number | null>(null);
  const current = list.data?.data.find((s) => s.id === editing);
  return (
    <>
      <h2>Node access</h2>
      <Table
        label="Node access"
        rows={list.data?.data}
        error={list.error}
        retry={list.reload}
        empty="No nodes yet."
        columns={[
          { title: 'Node', cell: (s) => <a href={`#/nodes/${s.id}`}>{s.label}</a> },
          { title: 'SSH access', cell: (s) => (s.ssh.access ? 'on' : 'off') },
          { title: 'User', cell: (s) => s.ssh.user },
          { title: 'Address', cell: (s) => s.ssh.ip },
          { title: 'Port', cell: (s) => s.ssh.port },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (s: NodeSettings) => (
                    <button
                      type="button"
                      className="small"
                      onClick={() => setEditing(s.id)}
                      aria-label={`Edit SSH access to ${s.label}`}
                    >
                      Edit
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
      {canWrite && current && (
        <SettingsForm
          key={current.id}
          settings={current}
          onDone={() => {
            setEditing(null);
            list.reload();
          }}
        />
      )}
    </>
  );
}
