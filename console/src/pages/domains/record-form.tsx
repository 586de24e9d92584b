import type { FormEvent } from 'react';
import { Choice, Field, FormErrors } from '../../ui.tsx';
import { CAA_TAGS, type DomainRecord, RECORD_TYPES, type RecordType, secondsOptions } from './types.ts';

/** A record as its form holds it: numbers as text until sent. */
export interface RecordDraft {
  type: RecordType;
  name: string;
  target: string;
  priority: string;
  weight: string;
  port: string;
  service: string;
  protocol: string;
  tag: string;
  ttl_sec: string;
}

export function emptyRecord(type: RecordType = 'A'): RecordDraft {
  return {
    type,
    name: '',
    target: '',
    priority: type === 'MX' ? '10' : type === 'SRV' ? '10' : '',
    weight: type === 'SRV' ? '5' : '',
    port: '',
    service: '',
    protocol: 'tcp',
    tag: 'issue',
    ttl_sec: '0',
  };
}

export function draftOfRecord(r: DomainRecord): RecordDraft {
  return {
    type: r.type,
    name: r.name,
    target: r.target,
    priority: String(r.priority),
    weight: String(r.weight),
    port: String(r.port),
    service: r.service ?? '',
    protocol: r.protocol ?? 'tcp',
    tag: r.tag ?? 'issue',
    ttl_sec: String(r.ttl_sec),
  };
}

/** What each type calls its target, and what it takes. */
const TARGETS: Record<RecordType, { label: string; hint: string }> = {
  A: { label: 'IPv4 address', hint: '192.0.2.10' },
  AAAA: { label: 'IPv6 address', hint: '2001:db8::10' },
  NS: { label: 'Nameserver', hint: 'ns1.example.net' },
  MX: { label: 'Mail server', hint: 'mail.example.com; empty for a null MX' },
  CNAME: { label: 'Alias of', hint: 'www.example.com' },
  TXT: { label: 'Text', hint: 'v=spf1 -all' },
  SRV: { label: 'Target', hint: 'sip.example.com' },
  PTR: { label: 'Points to', hint: 'host.example.com' },
  CAA: { label: 'Value', hint: 'letsencrypt.org, or a mailto: or https: URL for iodef' },
};

const number = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** The body a create or update sends: the fields the type uses, and the TTL unless it is the domain's. */
export function recordBody(d: RecordDraft, withType: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = withType ? { type: d.type } : {};
  if (d.ttl_sec !== '0') body.ttl_sec = Number(d.ttl_sec);
  body.target = d.target;
  if (d.type === 'SRV') {
    Object.assign(body, {
      service: d.service,
      protocol: d.protocol,
      priority: number(d.priority),
      weight: number(d.weight),
      port: number(d.port),
    });
  } else {
    body.name = d.name;
  }
  if (d.type === 'MX') body.priority = number(d.priority);
  if (d.type === 'CAA') body.tag = d.tag;
  return body;
}

/** Record fields the form shows for `type`, in its order. */
function fieldsOf(type: RecordType): string[] {
  if (type === 'SRV') return ['service', 'protocol', 'priority', 'weight', 'port', 'target', 'ttl_sec'];
  return ['name', ...(type === 'CAA' ? ['tag'] : []), ...(type === 'MX' ? ['priority'] : []), 'target', 'ttl_sec'];
}

/** A record's fields for its type (MX priority; SRV service, protocol, priority, weight, port; CAA tag). */
export function RecordForm({
  draft,
  setDraft,
  editing,
  title,
  submit,
  error,
  busy,
  onSubmit,
  onCancel,
}: {
  draft: RecordDraft;
  setDraft: (d: RecordDraft) => void;
  editing: boolean;
  title: string;
  submit: string;
  error: unknown;
  busy: boolean;
  onSubmit: (event: FormEvent) => void;
  onCancel?: () => void;
}) {
  const set = (name: keyof RecordDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value });
  const shown = fieldsOf(draft.type);
  const has = (f: string) => shown.includes(f);
  const numeric = (name: 'priority' | 'weight' | 'port', label: string, hint: string) => (
    <Field label={label} name={name} error={error} hint={hint}>
      {(p) => <input {...p} inputMode="numeric" value={draft[name]} onChange={set(name)} />}
    </Field>
  );
  return (
    <form onSubmit={onSubmit} className="dn-record-form" noValidate aria-label={title}>
      <h3>{title}</h3>
      <div className="grid">
        {!editing && (
          <Field label="Type" name="type" error={error}>
            {(p) => (
              <select
                {...p}
                value={draft.type}
                onChange={(e) =>
                  setDraft({ ...emptyRecord(e.target.value as RecordType), name: draft.name, target: draft.target })
                }
              >
                {RECORD_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            )}
          </Field>
        )}
        {has('name') && (
          <Field
            label="Name"
            name="name"
            error={error}
            hint={draft.type === 'CNAME' ? 'A name under the domain: www' : 'Empty for the domain itself; www for www.<domain>'}
          >
            {(p) => <input {...p} value={draft.name} onChange={set('name')} />}
          </Field>
        )}
        {has('service') && (
          <Field label="Service" name="service" error={error} hint="sip, xmpp-server… (the underscore is added)">
            {(p) => <input {...p} value={draft.service} onChange={set('service')} />}
          </Field>
        )}
        {has('protocol') && (
          <Field label="Protocol" name="protocol" error={error}>
            {(p) => (
              <select {...p} value={draft.protocol} onChange={set('protocol')}>
                {['tcp', 'udp', 'tls'].map((x) => (
                  <option key={x}>{x}</option>
                ))}
              </select>
            )}
          </Field>
        )}
        {has('tag') && (
          <Field label="Tag" name="tag" error={error}>
            {(p) => (
              <select {...p} value={draft.tag} onChange={set('tag')}>
                {CAA_TAGS.map((x) => (
                  <option key={x}>{x}</option>
                ))}
              </select>
            )}
          </Field>
        )}
        {has('priority') && numeric('priority', 'Priority', '0-255, lower first')}
        {has('weight') && numeric('weight', 'Weight', '0-65535')}
        {has('port') && numeric('port', 'Port', '0-65535')}
        <Field label={TARGETS[draft.type].label} name="target" error={error} hint={TARGETS[draft.type].hint}>
          {(p) =>
            draft.type === 'TXT' ? (
              <textarea {...p} rows={2} value={draft.target} onChange={set('target')} />
            ) : (
              <input {...p} value={draft.target} onChange={set('target')} />
            )
          }
        </Field>
        <Field label="TTL" name="ttl_sec" error={error}>
          {(p) => (
            <Choice
              {...p}
              value={draft.ttl_sec === '0' ? '' : draft.ttl_sec}
              onChange={(v) => setDraft({ ...draft, ttl_sec: v || '0' })}
              empty="The domain's default"
              options={secondsOptions('').slice(1)}
            />
          )}
        </Field>
      </div>
      <div className="actions">
        <button type="submit" disabled={busy}>
          {submit}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <FormErrors error={error} fields={['type', ...shown]} />
    </form>
  );
}
