import type { FormEvent } from 'react';
import { Field, FormErrors } from '../../ui.tsx';
import { type Direction, PEERS, POLICIES, PROTOCOLS, type Rule } from './types.ts';

/** A rule as its form holds it: addresses as text, one or more a line or separated by commas. */
export interface RuleDraft {
  label: string;
  description: string;
  protocol: string;
  ports: string;
  ipv4: string;
  ipv6: string;
  action: string;
}

export function emptyDraft(direction: Direction): RuleDraft {
  return {
    label: '',
    description: '',
    protocol: 'TCP',
    ports: '',
    ipv4: direction === 'inbound' ? '0.0.0.0/0' : '',
    ipv6: direction === 'inbound' ? '::/0' : '',
    action: 'ACCEPT',
  };
}

export function draftOf(rule: Rule): RuleDraft {
  return {
    label: rule.label ?? '',
    description: rule.description ?? '',
    protocol: rule.protocol,
    ports: rule.ports ?? '',
    ipv4: (rule.addresses.ipv4 ?? []).join('\n'),
    ipv6: (rule.addresses.ipv6 ?? []).join('\n'),
    action: rule.action,
  };
}

const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The rule the API takes: empty optional fields left out, no ports for ICMP. */
export function ruleOf(draft: RuleDraft): Rule {
  const rule: Rule = {
    protocol: draft.protocol,
    addresses: { ipv4: list(draft.ipv4), ipv6: list(draft.ipv6) },
    action: draft.action as Rule['action'],
  };
  if (draft.protocol !== 'ICMP' && draft.ports.trim()) rule.ports = draft.ports.trim();
  if (draft.label.trim()) rule.label = draft.label.trim();
  if (draft.description.trim()) rule.description = draft.description.trim();
  return rule;
}

/** The fields of one rule, named as a rules PUT names them (`inbound[2].ports`) so that the API's reasons show at them. */
export function RuleForm({
  direction,
  index,
  draft,
  setDraft,
  error,
  busy,
  title,
  submit,
  onSubmit,
  onCancel,
}: {
  direction: Direction;
  index: number;
  draft: RuleDraft;
  setDraft: (draft: RuleDraft) => void;
  error: unknown;
  busy: boolean;
  title: string;
  submit: string;
  onSubmit: (event: FormEvent) => void;
  onCancel?: () => void;
}) {
  const at = (name: string) => `${direction}[${index}].${name}`;
  const set = (name: keyof RuleDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value });
  const peers = PEERS[direction];
  return (
    <form onSubmit={onSubmit} className="fw-rule-form" noValidate aria-label={title}>
      <h3>{title}</h3>
      <div className="grid">
        <Field label="Label" name={at('label')} error={error} hint="Optional, 3-32 characters">
          {(p) => <input {...p} value={draft.label} onChange={set('label')} />}
        </Field>
        <Field label="Protocol" name={at('protocol')} error={error}>
          {(p) => (
            <select {...p} value={draft.protocol} onChange={set('protocol')}>
              {PROTOCOLS.map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          )}
        </Field>
        {draft.protocol !== 'ICMP' && (
          <Field label="Ports" name={at('ports')} error={error} hint="22, 80-90, 443">
            {(p) => <input {...p} value={draft.ports} onChange={set('ports')} />}
          </Field>
        )}
        <Field label="Action" name={at('action')} error={error}>
          {(p) => (
            <select {...p} value={draft.action} onChange={set('action')}>
              {POLICIES.map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="grid">
        <Field label={`${peers}: IPv4`} name={at('addresses.ipv4')} error={error} hint="Addresses or networks, one a line">
          {(p) => <textarea {...p} rows={2} value={draft.ipv4} onChange={set('ipv4')} />}
        </Field>
        <Field label={`${peers}: IPv6`} name={at('addresses.ipv6')} error={error} hint="Addresses or networks, one a line">
          {(p) => <textarea {...p} rows={2} value={draft.ipv6} onChange={set('ipv6')} />}
        </Field>
        <Field label="Description" name={at('description')} error={error} hint="Optional">
          {(p) => <textarea {...p} rows={2} value={draft.description} onChange={set('description')} />}
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
      <FormErrors error={error} fields={['label', 'protocol', 'ports', 'action', 'addresses', 'description'].map(at)} />
    </form>
  );
}
