import { useRef, useState } from 'react';
import { useAccess } from '../../access.tsx';
import { api, getAll } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { go } from '../../router.ts';
import { TagsInput } from '../../tags-input.tsx';
import { Choice, Field, FormErrors, LoadError, useSubmit } from '../../ui.tsx';
import { authorizedKeys, ImageSelect, RootPassword, SshKeysChoice } from './deploy-fields.tsx';
import {
  type Firewall,
  type Image,
  loadRegions,
  loadTypes,
  type Node,
  type NodeType,
  type SshKey,
  type StackScript,
} from './model.ts';
import { PlanFacts, PlanField, RegionField } from './plan.tsx';
import { defaultsOf, fitting, StackScriptFields, stackscriptData } from './stackscript-fields.tsx';

/** What `#/nodes/create?image=…&stackscript=…` asks to start with. */
function preselected(): { image: string; stackscript: string } {
  const query = new URLSearchParams(window.location.hash.split('?')[1] ?? '');
  return { image: query.get('image') ?? '', stackscript: query.get('stackscript') ?? '' };
}

export function NodeCreate() {
  const access = useAccess();
  const choices = useLoad(
    () =>
      Promise.all([
        loadRegions(),
        loadTypes(),
        getAll<Image>('/images'),
        getAll<SshKey>('/profile/sshkeys'),
        getAll<Firewall>('/networking/firewalls'),
        getAll<StackScript>('/node/stackscripts'),
      ]),
    [],
  );
  const [start] = useState(preselected);
  const [form, setForm] = useState({
    label: '',
    region: '',
    type: '',
    image: start.image,
    root_pass: '',
    firewall: '',
    stackscript: start.stackscript,
  });
  const [tags, setTags] = useState<string[]>([]);
  const [backups, setBackups] = useState(false);
  const [privateIp, setPrivateIp] = useState(false);
  const [keys, setKeys] = useState<string[]>([]);
  const [pastedKeys, setPastedKeys] = useState('');
  const createdLabel = useRef('');
  const [udf, setUdf] = useState<Record<string, string> | null>(null);
  const [regions, types, images, sshKeys, firewalls, scripts] = choices.data ?? [];
  const script = scripts?.find((s) => String(s.id) === form.stackscript);
  const udfValues = udf ?? defaultsOf(script);

  const submit = useSubmit(
    async () => {
      const body: Record<string, unknown> = { region: form.region, type: form.type };
      if (form.label) body.label = form.label;
      if (form.image) body.image = form.image;
      if (form.root_pass) body.root_pass = form.root_pass;
      const authorized = authorizedKeys(keys, pastedKeys);
      if (authorized.length) body.authorized_keys = authorized;
      if (tags.length) body.tags = tags;
      if (backups) body.backups_enabled = true;
      if (privateIp) body.private_ip = true;
      if (script) {
        body.stackscript_id = script.id;
        body.stackscript_data = stackscriptData(udfValues);
      }
      const created = await api.post<Node>('/node/instances', body);
      createdLabel.current = created.label;
      go(`/nodes/${created.id}`);
      if (form.firewall) {
        try {
          await api.post(`/networking/firewalls/${form.firewall}/devices`, { type: 'node', id: created.id });
        } catch (err) {
          throw new Error(`Node ${created.label} was created, but the firewall was not assigned: ${(err as Error).message}`);
        }
      }
    },
    { done: () => `Node ${createdLabel.current} created` },
  );
  const set = (key: keyof typeof form) => (value: string) => setForm({ ...form, [key]: value });
  const type: NodeType | undefined = types?.find((t) => t.id === form.type);
  const offered = scripts ? fitting(scripts, form.image).filter((s) => s.id !== script?.id) : [];

  if (!access.canAdd('add_nodes')) {
    return (
      <section>
        <h1>Create a node</h1>
        <p className="muted">You may not create nodes: ask the account's owner for the add_nodes grant.</p>
      </section>
    );
  }
  return (
    <section className="node-create">
      <h1>Create a node</h1>
      <LoadError error={choices.error} retry={choices.reload} />
      <form onSubmit={submit.onSubmit} className="stack" noValidate aria-label="Create a node">
        <Field label="Label" name="label" error={submit.error} hint="Optional; one is made up when left empty">
          {(p) => <input {...p} value={form.label} onChange={(e) => set('label')(e.target.value)} />}
        </Field>
        <RegionField options={regions} value={form.region} onChange={set('region')} error={submit.error} />
        <PlanField
          options={types}
          value={form.type}
          onChange={set('type')}
          error={submit.error}
          hint="The plan: its specs and price"
        />
        {type && <PlanFacts type={type} />}
        <ImageSelect
          images={images}
          value={form.image}
          onChange={set('image')}
          empty="No image (an empty node)"
          error={submit.error}
        />
        <RootPassword value={form.root_pass} onChange={set('root_pass')} error={submit.error} />
        <SshKeysChoice
          profileKeys={sshKeys}
          chosen={keys}
          setChosen={setKeys}
          pasted={pastedKeys}
          setPasted={setPastedKeys}
          error={submit.error}
        />
        <Field
          label="StackScript"
          name="stackscript_id"
          error={submit.error}
          hint="Runs once at first boot; those that fit the image"
        >
          {(p) => (
            <Choice
              {...p}
              value={form.stackscript}
              onChange={(v) => {
                setUdf(null);
                set('stackscript')(v);
              }}
              empty="None"
              options={[...(script ? [script] : []), ...offered].map((s) => ({
                value: s.id,
                text: `${s.label} (${s.mine ? 'yours' : s.username})`,
              }))}
            />
          )}
        </Field>
        {script && <StackScriptFields script={script} values={udfValues} onChange={setUdf} error={submit.error} />}
        <TagsInput value={tags} onChange={setTags} />
        <Field label="Firewall" name="firewall_id" error={submit.error}>
          {(p) => (
            <Choice
              {...p}
              value={form.firewall}
              onChange={set('firewall')}
              empty="None"
              options={firewalls?.map((f) => ({ value: f.id, text: f.label }))}
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={backups} onChange={(e) => setBackups(e.target.checked)} /> Back it up daily
          {type && ` ($${type.addons.backups.price.monthly.toFixed(2)}/month more)`}
        </label>
        <label className="check">
          <input type="checkbox" checked={privateIp} onChange={(e) => setPrivateIp(e.target.checked)} /> A private IPv4 address
          too
        </label>
        <FormErrors
          error={submit.error}
          fields={['label', 'region', 'type', 'image', 'root_pass', 'authorized_keys', 'stackscript_id', 'stackscript_data']}
        />
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Creating…' : 'Create'}
        </button>
      </form>
    </section>
  );
}
