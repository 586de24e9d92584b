import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { Field, FormErrors, Status, Table, useAction, useSubmit } from '../../ui.tsx';
import { useNodeEvents } from '../node-events.ts';
import type { NodeInfo, NodeIps } from './types.ts';

interface Row {
  id: string;
  address: string;
  kind: string;
  rdns: string | null;
  /** Whether reverse DNS can be set on it. */
  named: boolean;
  /** Whether the API lets it go: an IPv4 address other than the node's last public one. */
  removable: boolean;
}

function rowsOf(ips: NodeIps): Row[] {
  const publics = ips.ipv4.public.length;
  const v4 = (kind: string, removable: boolean) => (a: NodeIps['ipv4']['public'][number]) => ({
    id: `${kind}-${a.address}`,
    address: a.address,
    kind,
    rdns: a.rdns,
    named: a.public,
    removable,
  });
  return [
    ...ips.ipv4.public.map(v4('Public IPv4', publics > 1)),
    ...ips.ipv4.private.map(v4('Private IPv4', true)),
    ...ips.ipv4.shared.map(v4('Shared IPv4', false)),
    ...ips.ipv4.reserved.map(v4('Reserved IPv4', false)),
    {
      id: 'slaac',
      address: `${ips.ipv6.slaac.address}/${ips.ipv6.slaac.prefix}`,
      kind: 'IPv6 SLAAC',
      rdns: ips.ipv6.slaac.rdns,
      named: true,
      removable: false,
    },
    {
      id: 'link-local',
      address: `${ips.ipv6.link_local.address}/${ips.ipv6.link_local.prefix}`,
      kind: 'IPv6 link-local',
      rdns: null,
      named: false,
      removable: false,
    },
    ...ips.ipv6.global.map((r) => ({
      id: `range-${r.range}`,
      address: `${r.range}/${r.prefix}`,
      kind: 'IPv6 range',
      rdns: null,
      named: false,
      removable: false,
    })),
  ];
}

/** The node's addresses (allocate, name, remove) and the firewalls that guard it. */
export function AddressesPart({ node }: { node: NodeInfo }) {
  const ips = useLoad(() => api.get<NodeIps>(`/node/instances/${node.id}/ips`), [node.id]);
  const firewalls = useLoad(
    () => getAll<{ id: number; label: string; status: string }>(`/node/instances/${node.id}/firewalls`),
    [node.id],
  );
  useNodeEvents(ips.reload, [node.id]);
  const access = useAccess();
  const canWrite = access.canWrite('node', node.id);
  const [naming, setNaming] = useState<Row | null>(null);
  const [kind, setKind] = useState('private');
  const bare = (row: Row) => row.address.replace(/\/\d+$/, '');
  const allocate = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/ips`, { type: 'ipv4', public: kind === 'public' });
      ips.reload();
    },
    { done: () => `${kind === 'public' ? 'Public' : 'Private'} IPv4 address allocated` },
  );
  const remove = useAction(
    async (row: Row) => {
      await api.del(`/node/instances/${node.id}/ips/${encodeURIComponent(row.address)}`);
      if (naming?.id === row.id) setNaming(null);
      ips.reload();
    },
    {
      done: (row) => `Address ${row.address} removed`,
      confirm: (row) => ({
        title: `Remove address ${row.address}?`,
        body: `The node stops answering at ${row.address} and the address goes back to the pool; it may be given to someone else.`,
        action: 'Remove',
        danger: true,
      }),
    },
  );
  const rows = ips.data ? rowsOf(ips.data) : undefined;
  return (
    <section aria-labelledby="addresses-title">
      <h2 id="addresses-title">Addresses</h2>
      <Table
        label="Addresses"
        rows={rows}
        error={ips.error}
        retry={ips.reload}
        empty="No addresses."
        columns={[
          { title: 'Address', cell: (r) => <span className="mono">{r.address}</span> },
          { title: 'Kind', cell: (r) => r.kind },
          { title: 'Reverse DNS', cell: (r) => r.rdns ?? '—' },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (r: Row) =>
                    (r.named || r.removable) && (
                      <span className="row-actions">
                        {r.named && (
                          <button
                            type="button"
                            className="small"
                            aria-label={`Set reverse DNS of ${bare(r)}`}
                            aria-expanded={naming?.id === r.id}
                            onClick={() => setNaming(naming?.id === r.id ? null : r)}
                          >
                            Reverse DNS
                          </button>
                        )}
                        {r.removable && (
                          <button
                            type="button"
                            className="small danger"
                            aria-label={`Remove address ${r.address}`}
                            disabled={remove.busy}
                            onClick={() => void remove.run(r)}
                          >
                            Remove
                          </button>
                        )}
                      </span>
                    ),
                },
              ]
            : []),
        ]}
      />
      <FormErrors error={remove.error} />
      {canWrite && naming && (
        <RdnsForm
          key={naming.id}
          nodeId={node.id}
          address={bare(naming)}
          current={naming.rdns}
          done={() => {
            setNaming(null);
            ips.reload();
          }}
        />
      )}
      {canWrite && (
        <form onSubmit={allocate.onSubmit} className="grid" noValidate aria-label="Allocate an address">
          <Field label="New IPv4 address" name="public" error={allocate.error}>
            {(p) => (
              <select {...p} value={kind} onChange={(e) => setKind(e.target.value)}>
                <option value="private">private</option>
                <option value="public">public</option>
              </select>
            )}
          </Field>
          <button type="submit" disabled={allocate.busy}>
            Allocate
          </button>
        </form>
      )}
      <FormErrors error={allocate.error} fields={['public']} />
      <h2 id="firewalls-title">Firewalls</h2>
      <Table
        label="Firewalls"
        rows={firewalls.data}
        error={firewalls.error}
        retry={firewalls.reload}
        // A restricted user is shown only the firewalls granted to them: others may protect the node.
        empty={access.restricted ? 'No firewall you have access to protects this node.' : 'No firewall protects this node.'}
        columns={[
          { title: 'Label', cell: (f) => <a href={`#/firewalls/${f.id}`}>{f.label}</a> },
          { title: 'Status', cell: (f) => <Status value={f.status} /> },
        ]}
      />
    </section>
  );
}

/** Sets an address's reverse DNS name, or puts it back on the default. */
function RdnsForm({
  nodeId,
  address,
  current,
  done,
}: {
  nodeId: number;
  address: string;
  current: string | null;
  done: () => void;
}) {
  const [name, setName] = useState(current ?? '');
  const save = useSubmit(
    async () => {
      await api.put(`/node/instances/${nodeId}/ips/${encodeURIComponent(address)}`, { rdns: name.trim() || null });
      done();
    },
    { done: () => (name.trim() ? `Reverse DNS of ${address} set to ${name.trim()}` : `Reverse DNS of ${address} reset`) },
  );
  return (
    <form onSubmit={save.onSubmit} className="part-panel" noValidate aria-label={`Reverse DNS of ${address}`}>
      <div className="grid">
        <Field
          label={`Reverse DNS of ${address}`}
          name="rdns"
          error={save.error}
          hint="A name whose A or AAAA record points at the address; empty for the default"
        >
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={save.busy}>
          Save
        </button>
      </div>
      <FormErrors error={save.error} fields={['rdns']} />
    </form>
  );
}
