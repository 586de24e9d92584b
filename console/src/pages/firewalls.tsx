import { useState } from 'react';
import { api, getAll } from '../api.ts';
import { useLoad, usePaged } from '../hooks.ts';
import { go } from '../router.ts';
import { Choice, Field, FormErrors, LoadError, Pager, Status, Table, useAction, useSubmit } from '../ui.tsx';

interface Rule {
  protocol: string;
  ports?: string;
  addresses: { ipv4?: string[]; ipv6?: string[] };
  action: string;
  label?: string;
  description?: string;
}
interface Rules {
  inbound: Rule[];
  outbound: Rule[];
  inbound_policy: string;
  outbound_policy: string;
}
interface Firewall {
  id: number;
  label: string;
  status: string;
  rules: Rules;
  tags: string[];
}
interface Device {
  id: number;
  entity: { id: number; label: string; type: string };
}

export function FirewallsList() {
  const list = usePaged<Firewall>('/networking/firewalls');
  const [label, setLabel] = useState('');
  const create = useSubmit(async () => {
    const fw = await api.post<Firewall>('/networking/firewalls', {
      label,
      rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' },
    });
    go(`/firewalls/${fw.id}`);
  });
  return (
    <section>
      <h1>Firewalls</h1>
      <LoadError error={list.error} />
      <Table
        label="Firewalls"
        rows={list.data?.data}
        empty="No firewalls yet."
        columns={[
          { title: 'Label', cell: (f) => <a href={`#/firewalls/${f.id}`}>{f.label}</a> },
          { title: 'Status', cell: (f) => <Status value={f.status} /> },
          { title: 'Rules', cell: (f) => `${f.rules.inbound.length} in, ${f.rules.outbound.length} out` },
        ]}
      />
      <Pager page={list.data} setPage={list.setPage} />
      <h2>New firewall</h2>
      <form onSubmit={create.onSubmit} className="inline" noValidate>
        <Field label="Label" name="label" error={create.error}>
          {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
        </Field>
        <button type="submit" disabled={create.busy}>
          Create firewall
        </button>
      </form>
      <FormErrors error={create.error} fields={['label']} />
    </section>
  );
}

function ruleText(r: Rule): string {
  const from = [...(r.addresses.ipv4 ?? []), ...(r.addresses.ipv6 ?? [])].join(', ') || 'nowhere';
  return `${r.action} ${r.protocol}${r.ports ? ` ${r.ports}` : ''} from ${from}`;
}

export function FirewallDetail({ id }: { id: number }) {
  const fw = useLoad(() => api.get<Firewall>(`/networking/firewalls/${id}`), [id]);
  const devices = useLoad(() => getAll<Device>(`/networking/firewalls/${id}/devices`), [id]);
  const nodes = useLoad(() => getAll<{ id: number; label: string }>('/node/instances'), []);
  const [rule, setRule] = useState({ label: '', protocol: 'TCP', ports: '', addresses: '0.0.0.0/0', action: 'ACCEPT' });
  const [nodeId, setNodeId] = useState('');
  const addRule = useSubmit(async () => {
    const current = fw.data?.rules;
    if (!current) return;
    const addresses = rule.addresses
      .split(/[\s,]+/)
      .filter(Boolean)
      .reduce<{ ipv4: string[]; ipv6: string[] }>(
        (acc, a) => {
          (a.includes(':') ? acc.ipv6 : acc.ipv4).push(a);
          return acc;
        },
        { ipv4: [], ipv6: [] },
      );
    const added: Rule = { protocol: rule.protocol, addresses, action: rule.action };
    if (rule.ports) added.ports = rule.ports;
    if (rule.label) added.label = rule.label;
    await api.put(`/networking/firewalls/${id}/rules`, { ...current, inbound: [...current.inbound, added] });
    setRule({ ...rule, label: '', ports: '' });
    fw.reload();
  });
  const removeRule = useAction(async (index: number) => {
    const current = fw.data?.rules;
    if (!current) return;
    await api.put(`/networking/firewalls/${id}/rules`, { ...current, inbound: current.inbound.filter((_, i) => i !== index) });
    fw.reload();
  });
  const addDevice = useSubmit(async () => {
    await api.post(`/networking/firewalls/${id}/devices`, { type: 'node', id: Number(nodeId) });
    setNodeId('');
    devices.reload();
  });
  const removeDevice = useAction(async (deviceId: number) => {
    await api.del(`/networking/firewalls/${id}/devices/${deviceId}`);
    devices.reload();
  });
  if (fw.error) return <LoadError error={fw.error} />;
  const f = fw.data;
  if (!f) return <p className="muted">Loading…</p>;
  // A rules PUT names a field by its place in the list sent (inbound[2].ports): shown at the new rule's form.
  const ruleField = (name: string) => `inbound[${f.rules.inbound.length}].${name}`;
  return (
    <section>
      <header className="page-head">
        <h1>{f.label}</h1>
        <Status value={f.status} />
      </header>
      <p>
        Inbound policy: <strong>{f.rules.inbound_policy}</strong>; outbound policy: <strong>{f.rules.outbound_policy}</strong>
      </p>
      <h2>Inbound rules</h2>
      <Table
        label="Inbound rules"
        rows={f.rules.inbound.map((r, i) => ({ ...r, id: i }))}
        empty="No inbound rules: the policy decides."
        columns={[
          { title: 'Label', cell: (r) => r.label ?? '—' },
          { title: 'Rule', cell: (r) => ruleText(r) },
          {
            title: '',
            cell: (r) => (
              <button
                type="button"
                className="small"
                onClick={() => removeRule.run(r.id)}
                aria-label={`Remove rule ${r.label ?? r.id + 1}`}
              >
                Remove
              </button>
            ),
          },
        ]}
      />
      <FormErrors error={removeRule.error} />
      <h3>Add an inbound rule</h3>
      <form onSubmit={addRule.onSubmit} className="grid" noValidate aria-label="Add an inbound rule">
        <Field label="Label" name={ruleField('label')} error={addRule.error}>
          {(p) => <input {...p} value={rule.label} onChange={(e) => setRule({ ...rule, label: e.target.value })} />}
        </Field>
        <Field label="Protocol" name={ruleField('protocol')} error={addRule.error}>
          {(p) => (
            <select {...p} value={rule.protocol} onChange={(e) => setRule({ ...rule, protocol: e.target.value })}>
              {['TCP', 'UDP', 'ICMP', 'IPENCAP'].map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Ports" name={ruleField('ports')} error={addRule.error} hint="22, 80-90, …">
          {(p) => <input {...p} value={rule.ports} onChange={(e) => setRule({ ...rule, ports: e.target.value })} />}
        </Field>
        <Field label="From addresses" name={ruleField('addresses')} error={addRule.error}>
          {(p) => <input {...p} value={rule.addresses} onChange={(e) => setRule({ ...rule, addresses: e.target.value })} />}
        </Field>
        <Field label="Action" name={ruleField('action')} error={addRule.error}>
          {(p) => (
            <select {...p} value={rule.action} onChange={(e) => setRule({ ...rule, action: e.target.value })}>
              <option>ACCEPT</option>
              <option>DROP</option>
            </select>
          )}
        </Field>
        <button type="submit" disabled={addRule.busy}>
          Add rule
        </button>
      </form>
      <FormErrors error={addRule.error} fields={['label', 'protocol', 'ports', 'addresses', 'action'].map(ruleField)} />
      <h2>Devices</h2>
      <Table
        label="Devices"
        rows={devices.data}
        empty="No devices."
        columns={[
          { title: 'Node', cell: (d) => <a href={`#/nodes/${d.entity.id}`}>{d.entity.label}</a> },
          {
            title: '',
            cell: (d) => (
              <button type="button" className="small" onClick={() => removeDevice.run(d.id)}>
                Remove
              </button>
            ),
          },
        ]}
      />
      <FormErrors error={removeDevice.error} />
      <form onSubmit={addDevice.onSubmit} className="inline" noValidate aria-label="Add a node">
        <Field label="Node" name="id" error={addDevice.error}>
          {(p) => (
            <Choice
              {...p}
              value={nodeId}
              onChange={setNodeId}
              empty="Choose a node"
              options={nodes.data?.map((n) => ({ value: n.id, text: n.label }))}
            />
          )}
        </Field>
        <button type="submit" disabled={addDevice.busy || !nodeId}>
          Add node
        </button>
      </form>
      <FormErrors error={addDevice.error} fields={['id']} />
    </section>
  );
}
