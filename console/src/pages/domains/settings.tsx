import { useEffect, useState } from 'react';
import { api } from '../../api.ts';
import { TagsInput } from '../../tags-input.tsx';
import { Choice, Field, FormErrors, useSubmit } from '../../ui.tsx';
import { addressList, type Domain, secondsOptions } from './types.ts';

interface SettingsDraft {
  soa_email: string;
  status: Domain['status'];
  description: string;
  ttl_sec: string;
  refresh_sec: string;
  retry_sec: string;
  expire_sec: string;
  axfr_ips: string;
  master_ips: string;
  tags: string[];
}

function draftOf(d: Domain): SettingsDraft {
  return {
    soa_email: d.soa_email,
    status: d.status,
    description: d.description,
    ttl_sec: String(d.ttl_sec),
    refresh_sec: String(d.refresh_sec),
    retry_sec: String(d.retry_sec),
    expire_sec: String(d.expire_sec),
    axfr_ips: d.axfr_ips.join('\n'),
    master_ips: d.master_ips.join('\n'),
    tags: d.tags,
  };
}

const TIMING: { name: 'ttl_sec' | 'refresh_sec' | 'retry_sec' | 'expire_sec'; label: string; fallback: string }[] = [
  { name: 'ttl_sec', label: 'Default TTL', fallback: 'Default (1 day)' },
  { name: 'refresh_sec', label: 'Refresh', fallback: 'Default (4 hours)' },
  { name: 'retry_sec', label: 'Retry', fallback: 'Default (4 hours)' },
  { name: 'expire_sec', label: 'Expire', fallback: 'Default (2 weeks)' },
];

/** Everything of a domain but its name and type, saved together (PUT); disabling it asks first. */
export function DomainSettings({ domain, saved }: { domain: Domain; saved: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(domain));
  // What another tab or user saved shows here too; a change of other fields (the zone's serial, the
  // time of the last update) keeps what is being typed.
  const stored = JSON.stringify(draftOf(domain));
  // biome-ignore lint/correctness/useExhaustiveDependencies: the domain's text stands for the domain
  useEffect(() => setDraft(draftOf(domain)), [stored]);
  const set = (name: keyof SettingsDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value });
  const save = useSubmit(
    async () => {
      const body: Record<string, unknown> = {
        status: draft.status,
        ttl_sec: Number(draft.ttl_sec),
        refresh_sec: Number(draft.refresh_sec),
        retry_sec: Number(draft.retry_sec),
        expire_sec: Number(draft.expire_sec),
        axfr_ips: addressList(draft.axfr_ips),
        tags: draft.tags,
      };
      if (domain.type === 'master' || draft.soa_email) body.soa_email = draft.soa_email;
      if (domain.type === 'slave') body.master_ips = addressList(draft.master_ips);
      // The API takes no empty description: one left empty stays as it is.
      if (draft.description.trim()) body.description = draft.description.trim();
      await api.put(`/domains/${domain.id}`, body);
      saved();
    },
    {
      done: () => `Domain ${domain.domain} saved`,
      confirm: () =>
        draft.status === 'disabled' && domain.status === 'active'
          ? {
              title: `Disable domain ${domain.domain}?`,
              body: 'The nameservers stop answering for it once saved: names under it stop resolving.',
              action: 'Disable and save',
              danger: true,
            }
          : null,
    },
  );
  const fields = ['soa_email', 'status', 'description', 'axfr_ips', 'master_ips', 'tags', ...TIMING.map((t) => t.name)];
  return (
    <>
      <h2>Settings</h2>
      <form onSubmit={save.onSubmit} className="dn-settings" noValidate aria-label="Domain settings">
        <div className="grid">
          <Field label="SOA email" name="soa_email" error={save.error}>
            {(p) => <input {...p} type="email" value={draft.soa_email} onChange={set('soa_email')} />}
          </Field>
          <Field label="Status" name="status" error={save.error}>
            {(p) => (
              <select {...p} value={draft.status} onChange={set('status')}>
                <option value="active">active (served)</option>
                <option value="disabled">disabled (not served)</option>
              </select>
            )}
          </Field>
          {TIMING.map((t) => (
            <Field key={t.name} label={t.label} name={t.name} error={save.error}>
              {(p) => (
                <Choice
                  {...p}
                  value={draft[t.name] === '0' ? '' : draft[t.name]}
                  onChange={(v) => setDraft({ ...draft, [t.name]: v || '0' })}
                  empty={t.fallback}
                  options={secondsOptions('').slice(1)}
                />
              )}
            </Field>
          ))}
        </div>
        <div className="grid">
          <Field label="Description" name="description" error={save.error}>
            {(p) => <input {...p} value={draft.description} onChange={set('description')} maxLength={255} />}
          </Field>
          <Field label="AXFR IPs" name="axfr_ips" error={save.error} hint="Addresses that may transfer the zone, one a line">
            {(p) => <textarea {...p} rows={2} value={draft.axfr_ips} onChange={set('axfr_ips')} />}
          </Field>
          {domain.type === 'slave' && (
            <Field label="Master IPs" name="master_ips" error={save.error} hint="The masters' addresses, one a line">
              {(p) => <textarea {...p} rows={2} value={draft.master_ips} onChange={set('master_ips')} />}
            </Field>
          )}
        </div>
        <TagsInput value={draft.tags} onChange={(tags) => setDraft({ ...draft, tags })} />
        <div className="actions">
          <button type="submit" disabled={save.busy}>
            Save settings
          </button>
        </div>
      </form>
      <FormErrors error={save.error} fields={fields} />
    </>
  );
}
