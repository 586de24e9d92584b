import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api } from '../../api.ts';
import { deleteAndLeave, useEvents, useLoad } from '../../hooks.ts';
import { FormErrors, Show, Status, useAction, when } from '../../ui.tsx';
import { useNodeEvents } from '../node-events.ts';
import { NodeParts } from '../node-parts.tsx';
import { NodeChanges } from './changes.tsx';
import { megabytes, type Node, poweredOff } from './model.ts';

/** The operations that keep a node busy while its status stays as it was. */
const HOLDING = new Set(['password_reset', 'disk_create', 'disk_delete', 'disk_duplicate', 'disk_resize', 'node_snapshot']);

type Power = 'boot' | 'shutdown' | 'reboot' | 'delete';
const VERB: Record<Power, string> = { boot: 'Boot', shutdown: 'Shut down', reboot: 'Reboot', delete: 'Delete' };
const WHAT: Record<Exclude<Power, 'boot'>, string> = {
  shutdown: 'Whatever runs on it stops and connections to it drop; it stays off until booted.',
  reboot: 'Whatever runs on it restarts; connections to it drop meanwhile.',
  delete: 'The node, its disks and its backups are deleted, and its addresses released. This cannot be undone.',
};

/** Boot, shut down, reboot and delete: only those the node's status allows. */
function PowerActions({ node, reload, underWay }: { node: Node; reload: () => void; underWay: string | null }) {
  const act = useAction(
    async (action: Power) => {
      if (action === 'delete') {
        await deleteAndLeave(() => api.del(`/node/instances/${node.id}`), '/nodes');
        return;
      }
      await api.post(`/node/instances/${node.id}/${action}`);
      reload();
    },
    {
      done: (action) =>
        ({
          boot: `Booting ${node.label}`,
          shutdown: `Shutting down ${node.label}`,
          reboot: `Rebooting ${node.label}`,
          delete: `Node ${node.label} deleted`,
        })[action],
      confirm: (action) =>
        action === 'boot'
          ? null
          : { title: `${VERB[action]} ${node.label}?`, body: WHAT[action], action: VERB[action], danger: action === 'delete' },
    },
  );
  const offered: Power[] = [
    ...(poweredOff(node.status) ? (['boot'] as const) : []),
    ...(node.status === 'running' ? (['shutdown', 'reboot'] as const) : []),
    ...(node.status === 'deleting' ? [] : (['delete'] as const)),
  ];
  return (
    <>
      <fieldset className="actions" aria-label="Power">
        {offered.map((action) => (
          <button
            key={action}
            type="button"
            className={action === 'delete' ? 'danger' : undefined}
            disabled={act.busy || underWay !== null}
            onClick={() => void act.run(action)}
          >
            {VERB[action]}
          </button>
        ))}
      </fieldset>
      {underWay && (
        <p className="muted">{underWay.replace(/_/g, ' ')} under way: the node takes no other operation until it ends.</p>
      )}
      <FormErrors error={act.error} />
    </>
  );
}

function Facts({ node: n }: { node: Node }) {
  return (
    <dl className="facts">
      <dt>Region</dt>
      <dd>{n.region}</dd>
      <dt>Type</dt>
      <dd>
        {n.type}: {n.specs.vcpus} vCPU, {megabytes(n.specs.memory)} memory, {megabytes(n.specs.disk)} disk
      </dd>
      <dt>Image</dt>
      <dd>{n.image ?? '—'}</dd>
      <dt>IPv4</dt>
      <dd>{n.ipv4.join(', ') || '—'}</dd>
      <dt>IPv6</dt>
      <dd className="address">{n.ipv6 ?? '—'}</dd>
      <dt>Tags</dt>
      <dd>{n.tags.join(', ') || '—'}</dd>
      <dt>Backups</dt>
      <dd>
        {n.backups.enabled
          ? `on; ${n.backups.last_successful ? `last ${when(n.backups.last_successful)}` : 'none made yet'}`
          : 'off'}
      </dd>
      <dt>Created</dt>
      <dd>{when(n.created)}</dd>
    </dl>
  );
}

export function NodeDetail({ id }: { id: number }) {
  const access = useAccess();
  const node = useLoad(() => api.get<Node>(`/node/instances/${id}`), [id]);
  useNodeEvents(node.reload, [id]);
  const write = access.canWrite('node', id);
  // What the events say holds the node without a status of its own (a password reset, a disk's work).
  const [underWay, setUnderWay] = useState<string | null>(null);
  useEvents((events) => {
    for (const e of events) {
      if (e.entity?.type === 'node' && e.entity.id === id && HOLDING.has(e.action))
        setUnderWay(e.status === 'scheduled' || e.status === 'started' ? e.action : null);
    }
  });
  return (
    <section className="node-detail">
      <Show loaded={node}>
        {(n) => (
          <>
            <header className="page-head">
              <h1>{n.label}</h1>
              <Status value={n.status} />
            </header>
            {write && <PowerActions node={n} reload={node.reload} underWay={underWay} />}
            <Facts node={n} />
            {write && <NodeChanges node={n} reload={node.reload} underWay={underWay} started={setUnderWay} />}
            <NodeParts node={n} reloadNode={node.reload} />
          </>
        )}
      </Show>
    </section>
  );
}
