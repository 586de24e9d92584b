import { useState } from 'react';
import { FormErrors, Table, useAction, useSubmit } from '../../ui.tsx';
import { draftOf, emptyDraft, type RuleDraft, RuleForm, ruleOf } from './rule-form.tsx';
import { type Direction, type Firewall, PEERS, type Rule, type Rules } from './types.ts';

const NAMES: Record<Direction, string> = { inbound: 'Inbound', outbound: 'Outbound' };

function ruleName(rule: Rule, index: number): string {
  return rule.label ?? `rule ${index + 1}`;
}

function peersText(rule: Rule): string {
  return [...(rule.addresses.ipv4 ?? []), ...(rule.addresses.ipv6 ?? [])].join(', ') || 'none';
}

/**
 * One direction's rules: the table, and one form that adds a rule or edits the one picked. Every
 * change PUTs the whole rule set (`save`), as the API replaces it.
 */
export function DirectionRules({
  firewall,
  direction,
  canWrite,
  save,
}: {
  firewall: Firewall;
  direction: Direction;
  canWrite: boolean;
  save: (rules: Rules) => Promise<void>;
}) {
  const rules = firewall.rules[direction];
  const [editing, setEditing] = useState<number | null>(null);
  const [draft, setDraft] = useState<RuleDraft>(() => emptyDraft(direction));
  const index = editing ?? rules.length;
  const reset = () => {
    setEditing(null);
    setDraft(emptyDraft(direction));
  };
  const submit = useSubmit(
    async () => {
      const rule = ruleOf(draft);
      const next = editing === null ? [...rules, rule] : rules.map((r, i) => (i === editing ? rule : r));
      await save({ ...firewall.rules, [direction]: next });
      reset();
    },
    {
      done: () =>
        `${NAMES[direction]} rule ${ruleName(ruleOf(draft), index)} ${editing === null ? 'added to' : 'saved in'} ${firewall.label}`,
    },
  );
  const remove = useAction(
    async (at: number) => {
      await save({ ...firewall.rules, [direction]: rules.filter((_, i) => i !== at) });
      if (editing !== null) reset();
    },
    {
      done: (at) => `${NAMES[direction]} rule ${ruleName(rules[at] as Rule, at)} removed from ${firewall.label}`,
      confirm: (at) => ({
        title: `Remove ${direction} rule ${ruleName(rules[at] as Rule, at)} from ${firewall.label}?`,
        body: `The traffic it matched falls to the ${direction} policy (${firewall.rules[`${direction}_policy`]}) at once.`,
        action: 'Remove',
        danger: true,
      }),
    },
  );
  const edit = (at: number) => {
    setEditing(at);
    setDraft(draftOf(rules[at] as Rule));
  };
  const rows = rules.map((r, i) => ({ ...r, at: i }));
  return (
    <>
      <h2>{NAMES[direction]} rules</h2>
      <Table
        label={`${NAMES[direction]} rules`}
        rows={rows}
        rowKey={(r) => r.at}
        empty={`No ${direction} rules: the ${direction} policy decides.`}
        columns={[
          { title: 'Label', cell: (r) => r.label ?? '—' },
          { title: 'Action', cell: (r) => <span className={`fw-action fw-${r.action.toLowerCase()}`}>{r.action}</span> },
          { title: 'Protocol', cell: (r) => r.protocol },
          { title: 'Ports', cell: (r) => r.ports ?? (r.protocol === 'ICMP' ? '—' : 'all') },
          { title: PEERS[direction], cell: (r) => <span className="mono fw-peers">{peersText(r)}</span> },
          { title: 'Description', cell: (r) => r.description ?? '—' },
          ...(canWrite
            ? [
                {
                  title: '',
                  cell: (r: Rule & { at: number }) => (
                    <span className="fw-row-actions">
                      <button
                        type="button"
                        className="small"
                        onClick={() => edit(r.at)}
                        aria-label={`Edit ${direction} rule ${ruleName(r, r.at)}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        disabled={remove.busy}
                        onClick={() => void remove.run(r.at)}
                        aria-label={`Remove ${direction} rule ${ruleName(r, r.at)}`}
                      >
                        Remove
                      </button>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
      <FormErrors error={remove.error} />
      {canWrite && (
        <RuleForm
          key={editing ?? 'new'}
          direction={direction}
          index={index}
          draft={draft}
          setDraft={setDraft}
          error={submit.error}
          busy={submit.busy}
          title={
            editing === null ? `Add an ${direction} rule` : `Edit ${direction} rule ${ruleName(rules[editing] as Rule, editing)}`
          }
          submit={editing === null ? 'Add rule' : 'Save rule'}
          onSubmit={submit.onSubmit}
          onCancel={editing === null ? undefined : reset}
        />
      )}
    </>
  );
}
