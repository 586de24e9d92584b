import { useState } from 'react';
import { api, getAll } from '../../api.ts';
import { type Loaded, useLoad } from '../../hooks.ts';
import { Choice, Field, FormErrors, Table, useAction, useSubmit, when } from '../../ui.tsx';
import type { Device, Firewall, NodeChoice } from './types.ts';

/** The nodes a firewall protects: added from the account's nodes, removed after a question. */
export function FirewallDevices({
  firewall,
  devices,
  canWrite,
}: {
  firewall: Firewall;
  devices: Loaded<Device[]>;
  canWrite: boolean;
}) {
  const nodes = useLoad(() => (canWrite ? getAll<NodeChoice>('/node/instances') : Promise.resolve([])), [canWrite]);
  const [nodeId, setNodeId] = useState('');
  const nodeLabel = (id: string) => nodes.data?.find((n) => String(n.id) === id)?.label ?? `node ${id}`;
  const add = useSubmit(
    async () => {
      await api.post(`/networking/firewalls/${firewall.id}/devices`, { type: 'node', id: Number(nodeId) });
      setNodeId('');
      devices.reload();
    },
    { done: () => `${nodeLabel(nodeId)} added to ${firewall.label}` },
  );
  const remove = useAction(
    async (device: Device) => {
      await api.del(`/networking/firewalls/${firewall.id}/devices/${device.id}`);
      devices.reload();
    },
    {
      done: (device) => `${device.entity.label} removed from ${firewall.label}`,
      confirm: (device) => ({
        title: `Remove ${device.entity.label} from ${firewall.label}?`,
        body: `${firewall.label}'s rules stop applying to ${device.entity.label} at once.`,
        action: 'Remove',
        danger: true,
      }),
    },
  );
  const taken = new Set(devices.data?.map((d) => d.entity.id));
  const free = nodes.data?.filter((n) => !taken.has(n.id));
  return (
    <>
      <h2>Devices</h2>
      <Table
        label="Devices"
        rows={devices.data}
        error={devices.error}
        retry={devices.reload}
        empty="No nodes: this firewall protects nothing yet."
        columns={[
          { title: 'Node', cell: (d) => <a href={`#/nodes/${d.entity.id}`}>{d.entity.label}</a> },
          { title: 'Added', cell: (d) => when(d.created) },
          ...(canWrite
            ? [
                {
                  title: '',
                  cell: (d: Device) => (
                    <button
                      type="button"
                      className="small danger"
                      disabled={remove.busy}
                      onClick={() => void remove.run(d)}
                      aria-label={`Remove ${d.entity.label} from the firewall`}
                    >
                      Remove
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      <FormErrors error={remove.error} />
      {canWrite && (
        <>
          <form onSubmit={add.onSubmit} className="inline" noValidate aria-label="Add a node">
            <Field label="Node" name="id" error={add.error}>
              {(p) => (
                <Choice
                  {...p}
                  value={nodeId}
                  onChange={setNodeId}
                  empty={free?.length === 0 ? 'No other nodes' : 'Choose a node'}
                  options={free?.map((n) => ({ value: n.id, text: n.label }))}
                />
              )}
            </Field>
            <button type="submit" disabled={add.busy || !nodeId}>
              Add node
            </button>
          </form>
          <FormErrors error={add.error ?? nodes.error} fields={['id']} />
        </>
      )}
    </>
  );
}
