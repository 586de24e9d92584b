import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { type Loaded, useLoad } from '../../hooks.ts';
import { Choice, Field, FormErrors, Table, useAction, useSubmit } from '../../ui.tsx';
import { type Config, DEVICE_SLOTS, type Disk, HELPERS, type Helper, type NodeInfo, type Slot } from './types.ts';

const HELPER_TEXT: Record<Helper, string> = {
  updatedb_disabled: 'Disable updatedb',
  distro: 'Distribution helper',
  modules_dep: 'Build modules.dep',
  network: 'Auto-configure networking',
  devtmpfs_automount: 'Mount devtmpfs',
};

/** The node's config profiles: add, edit, delete, and boot or reboot into one. */
export function ConfigsPart({
  node,
  nodeDisks,
  reloadNode,
}: {
  node: NodeInfo;
  /** The node's disks as the disks part shows them: a config's devices offer no other. */
  nodeDisks: Loaded<Disk[]>;
  reloadNode: () => void;
}) {
  const disks = nodeDisks.data;
  // Read once the disks are, and again whenever they are (every event about the node reads them): a
  // disk deleted or added changes the configs' devices.
  const parts = useLoad(
    () => (disks ? getAll<Config>(`/node/instances/${node.id}/configs`) : Promise.resolve(undefined)),
    [node.id, disks],
  );
  const canWrite = useAccess().canWrite('node', node.id);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const configs = disks && parts.data;
  const diskLabel = (id: number | undefined) => disks?.find((d) => d.id === id)?.label ?? `disk ${id}`;
  const remove = useAction(
    async (config: Config) => {
      await api.del(`/node/instances/${node.id}/configs/${config.id}`);
      if (editing === config.id) setEditing(null);
      parts.reload();
    },
    {
      done: (config) => `Config ${config.label} deleted`,
      confirm: (config) => ({
        title: `Delete config ${config.label}?`,
        body: 'The profile goes; its disks stay. The node cannot boot into it any more.',
        action: 'Delete',
        danger: true,
      }),
    },
  );
  const running = node.status === 'running';
  const power = useAction(
    async (config: Config) => {
      await api.post(`/node/instances/${node.id}/${running ? 'reboot' : 'boot'}`, { config_id: config.id });
      reloadNode();
    },
    {
      done: (config) => `${running ? 'Rebooting' : 'Booting'} into ${config.label}`,
      confirm: (config) =>
        running
          ? {
              title: `Reboot ${node.label} into ${config.label}?`,
              body: 'Whatever runs on it stops; connections to it drop. It comes back with this profile.',
              action: 'Reboot',
            }
          : null,
    },
  );
  const settled = running || node.status === 'offline';
  const edited = typeof editing === 'number' ? configs?.find((c) => c.id === editing) : undefined;
  return (
    <section aria-labelledby="configs-title">
      <h2 id="configs-title">Configs</h2>
      <Table
        label="Configs"
        rows={configs}
        error={parts.error ?? nodeDisks.error}
        retry={parts.error ? parts.reload : nodeDisks.reload}
        empty="No configs."
        columns={[
          { title: 'Label', cell: (c) => c.label },
          { title: 'Kernel', cell: (c) => c.kernel },
          {
            title: 'Devices',
            cell: (c) =>
              DEVICE_SLOTS.filter((s) => c.devices[s])
                .map((s) => `${s}: ${diskLabel(c.devices[s]?.disk_id)}`)
                .join(', ') || '—',
          },
          { title: 'Root device', cell: (c) => c.root_device },
          { title: 'Memory limit', cell: (c) => (c.memory_limit ? `${c.memory_limit} MB` : 'none') },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (c: Config) => (
                    <span className="row-actions">
                      {settled && (
                        <button
                          type="button"
                          className="small"
                          disabled={power.busy}
                          onClick={() => void power.run(c)}
                          aria-label={`${running ? 'Reboot' : 'Boot'} into ${c.label}`}
                        >
                          {running ? 'Reboot into' : 'Boot into'}
                        </button>
                      )}
                      <button
                        type="button"
                        className="small"
                        aria-label={`Edit config ${c.label}`}
                        aria-expanded={editing === c.id}
                        onClick={() => setEditing(editing === c.id ? null : c.id)}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        aria-label={`Delete config ${c.label}`}
                        disabled={remove.busy}
                        onClick={() => void remove.run(c)}
                      >
                        Delete
                      </button>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
      <FormErrors error={remove.error} />
      <FormErrors error={power.error} />
      {canWrite && disks && (
        <>
          {editing === null && (
            <button type="button" onClick={() => setEditing('new')}>
              Add a config
            </button>
          )}
          {(editing === 'new' || edited) && (
            <ConfigForm
              key={edited?.id ?? 'new'}
              nodeId={node.id}
              config={edited}
              disks={disks}
              done={() => {
                setEditing(null);
                parts.reload();
              }}
              close={() => setEditing(null)}
            />
          )}
        </>
      )}
    </section>
  );
}

interface ConfigFields {
  label: string;
  kernel: string;
  root_device: string;
  memory_limit: string;
  run_level: Config['run_level'];
  virt_mode: Config['virt_mode'];
  comments: string;
  devices: Record<Slot, string>;
  helpers: Record<Helper, boolean>;
}

function fieldsOf(config: Config | undefined, disks: Disk[]): ConfigFields {
  const devices = Object.fromEntries(
    DEVICE_SLOTS.map((s, i) => [s, config ? String(config.devices[s]?.disk_id ?? '') : String(disks[i]?.id ?? '')]),
  ) as Record<Slot, string>;
  return {
    label: config?.label ?? '',
    kernel: config?.kernel ?? 'node/latest-64bit',
    root_device: config?.root_device ?? '/dev/sda',
    memory_limit: String(config?.memory_limit ?? 0),
    run_level: config?.run_level ?? 'default',
    virt_mode: config?.virt_mode ?? 'paravirt',
    comments: config?.comments ?? '',
    devices,
    helpers: config?.helpers ?? {
      updatedb_disabled: true,
      distro: true,
      modules_dep: true,
      network: true,
      devtmpfs_automount: true,
    },
  };
}

/** A config profile's fields, for a new one or to change one. */
function ConfigForm({
  nodeId,
  config,
  disks,
  done,
  close,
}: {
  nodeId: number;
  config: Config | undefined;
  disks: Disk[];
  done: () => void;
  close: () => void;
}) {
  const kernels = useLoad(() => getAll<{ id: string; label: string; deprecated: boolean }>('/node/kernels'), []);
  const [form, setForm] = useState(() => fieldsOf(config, disks));
  const save = useSubmit(
    async () => {
      const body = {
        label: form.label,
        kernel: form.kernel,
        root_device: form.root_device,
        memory_limit: Number(form.memory_limit || 0),
        run_level: form.run_level,
        virt_mode: form.virt_mode,
        comments: form.comments || null,
        helpers: form.helpers,
        devices: Object.fromEntries(DEVICE_SLOTS.map((s) => [s, form.devices[s] ? { disk_id: Number(form.devices[s]) } : null])),
      };
      if (config) await api.put(`/node/instances/${nodeId}/configs/${config.id}`, body);
      else await api.post(`/node/instances/${nodeId}/configs`, body);
      done();
    },
    { done: () => (config ? `Config ${form.label} saved` : `Config ${form.label} added`) },
  );
  const title = config ? `Edit config ${config.label}` : 'Add a config';
  const kernelOptions = kernels.data
    ?.filter((k) => !k.deprecated || k.id === form.kernel)
    .map((k) => ({ value: k.id, text: k.label }));
  return (
    <form onSubmit={save.onSubmit} className="part-panel" noValidate aria-label={title}>
      <h3>{title}</h3>
      <div className="grid">
        <Field label="Config label" name="label" error={save.error}>
          {(p) => (
            <input {...p} value={form.label} maxLength={48} onChange={(e) => setForm({ ...form, label: e.target.value })} />
          )}
        </Field>
        <Field label="Kernel" name="kernel" error={save.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.kernel}
              onChange={(kernel) => setForm({ ...form, kernel })}
              empty="Choose a kernel"
              options={kernelOptions}
            />
          )}
        </Field>
        <Field label="Root device" name="root_device" error={save.error}>
          {(p) => (
            <select {...p} value={form.root_device} onChange={(e) => setForm({ ...form, root_device: e.target.value })}>
              {[...new Set([...DEVICE_SLOTS.map((s) => `/dev/${s}`), form.root_device])].map((d) => (
                <option key={d}>{d}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Memory limit (MB)" name="memory_limit" error={save.error} hint="0: all the node's memory">
          {(p) => (
            <input
              {...p}
              type="number"
              min={0}
              value={form.memory_limit}
              onChange={(e) => setForm({ ...form, memory_limit: e.target.value })}
            />
          )}
        </Field>
        <Field label="Run level" name="run_level" error={save.error}>
          {(p) => (
            <select
              {...p}
              value={form.run_level}
              onChange={(e) => setForm({ ...form, run_level: e.target.value as Config['run_level'] })}
            >
              <option value="default">default</option>
              <option value="single">single user</option>
              <option value="binbash">/bin/bash</option>
            </select>
          )}
        </Field>
        <Field label="Virtualization mode" name="virt_mode" error={save.error}>
          {(p) => (
            <select
              {...p}
              value={form.virt_mode}
              onChange={(e) => setForm({ ...form, virt_mode: e.target.value as Config['virt_mode'] })}
            >
              <option value="paravirt">paravirtualized</option>
              <option value="fullvirt">full virtualization</option>
            </select>
          )}
        </Field>
      </div>
      <fieldset>
        <legend>Devices</legend>
        <div className="grid">
          {DEVICE_SLOTS.map((slot) => (
            <Field key={slot} label={`/dev/${slot}`} name={`devices.${slot}`} error={save.error}>
              {(p) => (
                <Choice
                  {...p}
                  value={form.devices[slot]}
                  onChange={(value) => setForm({ ...form, devices: { ...form.devices, [slot]: value } })}
                  empty="None"
                  options={disks.map((d) => ({ value: d.id, text: d.label }))}
                />
              )}
            </Field>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Helpers</legend>
        <div className="grid">
          {HELPERS.map((h) => (
            <label key={h} className="check">
              <input
                type="checkbox"
                checked={form.helpers[h]}
                onChange={(e) => setForm({ ...form, helpers: { ...form.helpers, [h]: e.target.checked } })}
              />{' '}
              {HELPER_TEXT[h]}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="Comments" name="comments" error={save.error}>
        {(p) => (
          <textarea {...p} rows={2} value={form.comments} onChange={(e) => setForm({ ...form, comments: e.target.value })} />
        )}
      </Field>
      <FormErrors
        error={save.error}
        fields={['label', 'kernel', 'root_device', 'memory_limit', 'run_level', 'virt_mode', 'devices', 'comments']}
      />
      <div className="actions">
        <button type="submit" disabled={save.busy}>
          {config ? 'Save config' : 'Add config'}
        </button>
        <button type="button" className="small" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
