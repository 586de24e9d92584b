import { useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { Choice, Field, FormErrors, Status, Table, useAction, useSubmit, when } from '../../ui.tsx';
import { useNodeEvents } from '../node-events.ts';
import type { Backup, Backups, NodeInfo } from './types.ts';

const KIND: Record<string, string> = { auto: 'Automatic', snapshot: 'Snapshot' };

/** The backup service: turn it on or off, take a snapshot, restore a backup here or to another node. */
export function BackupsPart({ node, reloadNode }: { node: NodeInfo; reloadNode: () => void }) {
  const backups = useLoad(() => api.get<Backups>(`/node/instances/${node.id}/backups`), [node.id]);
  useNodeEvents(backups.reload, [node.id]);
  const canWrite = useAccess().canWrite('node', node.id);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [label, setLabel] = useState('');
  const enabled = node.backups.enabled;
  const service = useAction(
    async (on: boolean) => {
      await api.post(`/node/instances/${node.id}/backups/${on ? 'enable' : 'cancel'}`);
      setRestoring(null);
      reloadNode();
      backups.reload();
    },
    {
      done: (on) => (on ? 'Backups enabled' : 'Backups cancelled; their copies are deleted'),
      confirm: (on) =>
        on
          ? null
          : {
              title: `Cancel backups of ${node.label}?`,
              body: 'The backup service stops and every backup of this node, the snapshot too, is deleted for good.',
              action: 'Cancel backups',
              danger: true,
            },
    },
  );
  const snapshot = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/backups`, { label });
      setLabel('');
      backups.reload();
    },
    { done: () => `Snapshot ${label} started` },
  );
  const b = backups.data;
  const rows = b
    ? [
        ...(b.snapshot.in_progress ? [b.snapshot.in_progress] : []),
        ...(b.snapshot.current ? [b.snapshot.current] : []),
        ...b.automatic,
      ]
    : undefined;
  return (
    <section aria-labelledby="backups-title">
      <h2 id="backups-title">Backups</h2>
      <p>
        The backup service is <strong>{enabled ? 'on' : 'off'}</strong>
        {enabled && node.backups.last_successful ? `; the last backup succeeded ${when(node.backups.last_successful)}` : ''}.
      </p>
      {canWrite && (
        <div className="actions">
          {enabled ? (
            <button type="button" className="danger" disabled={service.busy} onClick={() => void service.run(false)}>
              Cancel backups
            </button>
          ) : (
            <button type="button" disabled={service.busy} onClick={() => void service.run(true)}>
              Enable backups
            </button>
          )}
        </div>
      )}
      <FormErrors error={service.error} />
      {canWrite && enabled && (
        <>
          <form onSubmit={snapshot.onSubmit} className="grid" noValidate aria-label="Take a snapshot">
            <Field label="Snapshot label" name="label" error={snapshot.error} hint="It replaces the current snapshot once done">
              {(p) => <input {...p} value={label} maxLength={255} onChange={(e) => setLabel(e.target.value)} />}
            </Field>
            <button type="submit" disabled={snapshot.busy || !label || Boolean(b?.snapshot.in_progress)}>
              Take snapshot
            </button>
          </form>
          <FormErrors error={snapshot.error} fields={['label']} />
        </>
      )}
      <Table
        label="Backups"
        rows={rows}
        error={backups.error}
        retry={backups.reload}
        empty={enabled ? 'No backups yet: the first is taken in the daily window.' : 'No backups.'}
        columns={[
          { title: 'Kind', cell: (x) => KIND[x.type] ?? x.type },
          { title: 'Label', cell: (x) => x.label ?? '—' },
          { title: 'Status', cell: (x) => <Status value={x.status} /> },
          { title: 'Started', cell: (x) => when(x.created) },
          { title: 'Finished', cell: (x) => when(x.finished) },
          { title: 'Disks', cell: (x) => x.disks.map((d) => `${d.label} (${d.size} MB)`).join(', ') || '—' },
          ...(canWrite
            ? [
                {
                  title: 'Actions',
                  cell: (x: Backup) =>
                    x.status === 'successful' ? (
                      <button
                        type="button"
                        className="small"
                        aria-label={`Restore ${x.label ?? `backup ${x.id}`}`}
                        aria-expanded={restoring?.id === x.id}
                        onClick={() => setRestoring(restoring?.id === x.id ? null : x)}
                      >
                        Restore
                      </button>
                    ) : null,
                },
              ]
            : []),
        ]}
      />
      {restoring && <RestoreForm key={restoring.id} node={node} backup={restoring} close={() => setRestoring(null)} />}
    </section>
  );
}

/** Restore a backup onto this node or another the user may change, replacing what it holds or beside it. */
function RestoreForm({ node, backup, close }: { node: NodeInfo; backup: Backup; close: () => void }) {
  const access = useAccess();
  const nodes = useLoad(() => getAll<{ id: number; label: string }>('/node/instances'), []);
  const [target, setTarget] = useState(String(node.id));
  const [overwrite, setOverwrite] = useState(false);
  const name = backup.label ?? `backup ${backup.id}`;
  const targetLabel = nodes.data?.find((n) => String(n.id) === target)?.label ?? `node ${target}`;
  const restore = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/backups/${backup.id}/restore`, {
        node_id: Number(target),
        overwrite,
      });
      close();
    },
    {
      done: () => `Restoring ${name} to ${targetLabel}`,
      confirm: () => ({
        title: `Restore ${name} to ${targetLabel}?`,
        body: overwrite
          ? `Every disk and config of ${targetLabel} is deleted first and replaced by the backup's; its root password becomes the backed-up one. ${targetLabel} is offline afterwards.`
          : `The backup's disks and configs are added to ${targetLabel} beside its own, if they fit. ${targetLabel} is offline afterwards.`,
        action: 'Restore',
        danger: overwrite,
      }),
    },
  );
  return (
    <form onSubmit={restore.onSubmit} className="part-panel" noValidate aria-label={`Restore ${name}`}>
      <h3>Restore {name}</h3>
      <div className="grid">
        <Field label="Restore to node" name="node_id" error={restore.error}>
          {(p) => (
            <Choice
              {...p}
              value={target}
              onChange={setTarget}
              empty="Choose a node"
              options={nodes.data
                ?.filter((n) => access.canWrite('node', n.id))
                .map((n) => ({ value: n.id, text: n.id === node.id ? `${n.label} (this node)` : n.label }))}
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} /> Replace its disks and
          configs
        </label>
        <button type="submit" disabled={restore.busy || !target}>
          Restore
        </button>
        <button type="button" className="small" onClick={close}>
          Cancel
        </button>
      </div>
      <FormErrors error={restore.error} fields={['node_id']} />
    </form>
  );
}
