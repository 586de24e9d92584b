import { type ReactNode, useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { TagsInput } from '../../tags-input.tsx';
import { Choice, Field, FormErrors, useSubmit } from '../../ui.tsx';
import { CloneForm } from './clone.tsx';
import { authorizedKeys, ImageSelect, RootPassword, SshKeysChoice } from './deploy-fields.tsx';
import { type Image, loadRegions, loadTypes, type Node, poweredOff, type SshKey, settled } from './model.ts';
import { PlanField, RegionField } from './plan.tsx';

export interface ChangeProps {
  node: Node;
  reload: () => void;
}

interface ChangesProps extends ChangeProps {
  /** An operation the events say is under way; none other starts meanwhile. */
  underWay: string | null;
  /** Marks an operation as under way until its event ends (one that shows no status). */
  started: (action: string) => void;
}

/** One operation, folded away until opened. */
function Tool({ title, children }: { title: string; children: ReactNode }) {
  return (
    <details className="tool">
      <summary>{title}</summary>
      {children}
    </details>
  );
}

function EditForm({ node, reload }: ChangeProps) {
  const [label, setLabel] = useState(node.label);
  const [tags, setTags] = useState(node.tags);
  const submit = useSubmit(
    async () => {
      await api.put(`/node/instances/${node.id}`, { label, tags });
      reload();
    },
    { done: () => `Node ${label} saved` },
  );
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Edit the node">
      <Field label="Label" name="label" error={submit.error}>
        {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
      </Field>
      <TagsInput value={tags} onChange={setTags} />
      <FormErrors error={submit.error} fields={['label', 'tags']} />
      <button type="submit" disabled={submit.busy}>
        Save
      </button>
    </form>
  );
}

function RebuildForm({ node, reload }: ChangeProps) {
  const choices = useLoad(() => Promise.all([getAll<Image>('/images'), getAll<SshKey>('/profile/sshkeys')]), []);
  const [image, setImage] = useState(node.image ?? '');
  const [rootPass, setRootPass] = useState('');
  const [keys, setKeys] = useState<string[]>([]);
  const [pasted, setPasted] = useState('');
  const submit = useSubmit(
    async () => {
      const body: Record<string, unknown> = { image, root_pass: rootPass };
      const authorized = authorizedKeys(keys, pasted);
      if (authorized.length) body.authorized_keys = authorized;
      await api.post(`/node/instances/${node.id}/rebuild`, body);
      setRootPass('');
      reload();
    },
    {
      done: `Rebuilding ${node.label}`,
      confirm: {
        title: `Rebuild ${node.label}?`,
        body: `Its disks and configs are replaced by a fresh deployment of ${image || 'the image'}: everything on its disks is lost.`,
        action: 'Rebuild',
        danger: true,
      },
    },
  );
  const [images, profileKeys] = choices.data ?? [];
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Rebuild the node">
      <ImageSelect images={images} value={image} onChange={setImage} empty="Choose an image" error={submit.error} />
      <RootPassword value={rootPass} onChange={setRootPass} error={submit.error} />
      <SshKeysChoice
        profileKeys={profileKeys}
        chosen={keys}
        setChosen={setKeys}
        pasted={pasted}
        setPasted={setPasted}
        error={submit.error}
      />
      <FormErrors error={submit.error} fields={['image', 'root_pass', 'authorized_keys']} />
      <button type="submit" className="danger" disabled={submit.busy}>
        Rebuild
      </button>
    </form>
  );
}

function ResizeForm({ node, reload }: ChangeProps) {
  const types = useLoad(loadTypes, []);
  const [type, setType] = useState('');
  const [autoResize, setAutoResize] = useState(true);
  const chosen = types.data?.find((t) => t.id === type);
  const submit = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/resize`, { type, allow_auto_disk_resize: autoResize });
      reload();
    },
    {
      done: () => `Resizing ${node.label} to ${chosen?.label ?? type}`,
      confirm: () => ({
        title: `Resize ${node.label} to ${chosen?.label ?? type}?`,
        body: `It moves to the new plan's resources: it goes down meanwhile and comes back ${node.status === 'running' ? 'running' : 'off'}.${autoResize ? ' Its disk grows or shrinks to fit when it can.' : ''}`,
        action: 'Resize',
      }),
    },
  );
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Resize the node">
      <PlanField
        label="New type"
        options={types.data?.filter((t) => t.id !== node.type)}
        value={type}
        onChange={setType}
        error={submit.error}
      />
      <label className="check">
        <input type="checkbox" checked={autoResize} onChange={(e) => setAutoResize(e.target.checked)} /> Resize the disk to fit
        the new plan
      </label>
      <FormErrors error={submit.error} fields={['type']} />
      <button type="submit" disabled={submit.busy}>
        Resize
      </button>
    </form>
  );
}

const SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg'] as const;

function RescueForm({ node, reload }: ChangeProps) {
  const disks = useLoad(() => getAll<{ id: number; label: string }>(`/node/instances/${node.id}/disks`), [node.id]);
  const [devices, setDevices] = useState<Record<string, string> | null>(null);
  // Until the user picks, the node's disks go to sda, sdb… in order.
  const assigned = devices ?? Object.fromEntries(SLOTS.map((slot, i) => [slot, String(disks.data?.[i]?.id ?? '')]));
  const submit = useSubmit(
    async () => {
      const body = Object.fromEntries(
        SLOTS.filter((slot) => assigned[slot]).map((slot) => [slot, { disk_id: Number(assigned[slot]) }]),
      );
      await api.post(`/node/instances/${node.id}/rescue`, { devices: body });
      reload();
    },
    {
      done: `${node.label} is rebooting into rescue mode`,
      confirm: {
        title: `Reboot ${node.label} into rescue mode?`,
        body: 'It restarts from the rescue system with the disks below attached; whatever runs on it stops.',
        action: 'Rescue',
      },
    },
  );
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Rescue the node">
      <div className="grid">
        {SLOTS.map((slot) => (
          <Field key={slot} label={`/dev/${slot}`} name={`devices.${slot}`} error={submit.error}>
            {(p) => (
              <Choice
                {...p}
                value={assigned[slot] ?? ''}
                onChange={(v) => setDevices({ ...assigned, [slot]: v })}
                empty="None"
                options={disks.data?.map((d) => ({ value: d.id, text: d.label }))}
              />
            )}
          </Field>
        ))}
      </div>
      <FormErrors error={submit.error} fields={SLOTS.map((slot) => `devices.${slot}`)} />
      <button type="submit" disabled={submit.busy || !disks.data}>
        Reboot into rescue mode
      </button>
    </form>
  );
}

function MigrateForm({ node, reload }: ChangeProps) {
  const regions = useLoad(loadRegions, []);
  const [region, setRegion] = useState('');
  const submit = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/migrate`, { region });
      reload();
    },
    {
      done: () => `Migrating ${node.label} to ${region}`,
      confirm: () => ({
        title: `Migrate ${node.label} to ${region}?`,
        body: `It goes down while it moves and comes back ${node.status === 'running' ? 'running' : 'off'}; its addresses are replaced by addresses of ${region}.`,
        action: 'Migrate',
      }),
    },
  );
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Migrate the node">
      <RegionField
        label="To region"
        options={regions.data?.filter((r) => r.id !== node.region)}
        value={region}
        onChange={setRegion}
        error={submit.error}
      />
      <FormErrors error={submit.error} fields={['region']} />
      <button type="submit" disabled={submit.busy}>
        Migrate
      </button>
    </form>
  );
}

function PasswordForm({ node, started }: ChangeProps & { started: (action: string) => void }) {
  const [rootPass, setRootPass] = useState('');
  const submit = useSubmit(
    async () => {
      await api.post(`/node/instances/${node.id}/password`, { root_pass: rootPass });
      started('password_reset');
      setRootPass('');
    },
    { done: `Root password of ${node.label} reset` },
  );
  return (
    <form className="stack" onSubmit={submit.onSubmit} noValidate aria-label="Reset the root password">
      <Field label="New root password" name="root_pass" error={submit.error} hint="7 to 128 characters">
        {(p) => (
          <input
            {...p}
            type="password"
            autoComplete="new-password"
            value={rootPass}
            onChange={(e) => setRootPass(e.target.value)}
          />
        )}
      </Field>
      <FormErrors error={submit.error} fields={['root_pass']} />
      <button type="submit" disabled={submit.busy}>
        Reset the password
      </button>
    </form>
  );
}

/** What a user who may change the node can do to it beyond power: what its status allows. */
export function NodeChanges({ underWay, started, ...props }: ChangesProps) {
  const access = useAccess();
  const { node } = props;
  const ready = settled(node.status) && underWay === null;
  return (
    <section className="node-changes" aria-label="Change the node">
      <Tool title="Edit label and tags">
        <EditForm key={`${node.label} ${node.tags.join()}`} {...props} />
      </Tool>
      {ready ? (
        <>
          <Tool title="Rebuild">
            <RebuildForm {...props} />
          </Tool>
          <Tool title="Resize">
            <ResizeForm {...props} />
          </Tool>
          <Tool title="Rescue">
            <RescueForm {...props} />
          </Tool>
          <Tool title="Clone">
            <CloneForm {...props} toNew={access.canAdd('add_nodes')} />
          </Tool>
          <Tool title="Migrate">
            <MigrateForm {...props} />
          </Tool>
          {poweredOff(node.status) && (
            <Tool title="Reset the root password">
              <PasswordForm {...props} started={started} />
            </Tool>
          )}
        </>
      ) : (
        <p className="muted">
          Rebuild, resize, rescue, clone and migrate wait until the node is running or off and nothing else is under way.
        </p>
      )}
    </section>
  );
}
