import net from 'node:net';

/*
 * DNS name syntax as domains and records take it. Names are compared and stored in lower case,
 * without the root's trailing dot.
 */

/** The longest name in text form (255 octets on the wire). */
export const MAX_NAME_LENGTH = 253;

/** RFC 1035 host labels (letters, digits, hyphens inside), at most 63 characters. */
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Labels of names that are not host names (`_acme-challenge`, `_sip`): underscores too. */
const ANY_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** A top-level label: letters, or an internationalized (`xn--`) label. */
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** Why `name` cannot be a domain (a zone's apex), or null: RFC 1035 host labels, two or more, a top-level label of letters. */
export function domainNameProblem(name: string): string | null {
  if (name.length > MAX_NAME_LENGTH) return `A domain name has at most ${MAX_NAME_LENGTH} characters`;
  const labels = name.split('.');
  if (labels.length < 2) return 'A domain needs at least two labels (example.com)';
  for (const label of labels) {
    if (label.length > 63) return `Label ${label.slice(0, 20)}... is longer than 63 characters`;
    if (!HOST_LABEL.test(label)) {
      return `Label "${label}" must be letters, digits and hyphens, neither beginning nor ending with a hyphen (RFC 1035)`;
    }
  }
  if (!TOP_LABEL.test(labels[labels.length - 1] ?? '')) return 'The last label must be letters (or an xn-- label)';
  return null;
}

/** Why `name` cannot be a name a record points at (a host, a mail exchanger), or null. */
export function hostNameProblem(name: string): string | null {
  if (name.length > MAX_NAME_LENGTH) return `A host name has at most ${MAX_NAME_LENGTH} characters`;
  for (const label of name.split('.')) {
    if (label.length > 63) return 'Each label of a host name has at most 63 characters';
    if (!ANY_LABEL.test(label)) return `"${name}" is not a valid host name`;
  }
  return null;
}

/** Why `name` cannot be a record's name relative to its domain (`www`, `*.dev`, `_dmarc`), or null. */
export function relativeNameProblem(name: string): string | null {
  const labels = name.split('.');
  for (const [i, label] of labels.entries()) {
    if (label === '*' && i === 0) continue;
    if (label.length > 63) return 'Each label of a name has at most 63 characters';
    if (!ANY_LABEL.test(label)) {
      return 'A name is labels of letters, digits, hyphens and underscores separated by dots, optionally beginning with *.';
    }
  }
  return null;
}

/** A name as sent, compared the way DNS does: lower case, without the root's trailing dot. */
export function plainName(text: string): string {
  return text.toLowerCase().replace(/\.$/, '');
}

/**
 * A record's name relative to `domain`: the domain itself (written out or `@`) is `''`, a name
 * under it written out in full loses the domain.
 */
export function relativeName(text: string, domain: string): string {
  const name = plainName(text);
  if (name === domain || name === '@') return '';
  return name.endsWith(`.${domain}`) ? name.slice(0, -domain.length - 1) : name;
}

/** The absolute name of a record named `name` (relative) in `domain`. */
export function absoluteName(name: string, domain: string): string {
  return name === '' ? domain : `${name}.${domain}`;
}

/** A target host as sent: a single label (`www`) is a name in the domain, anything longer is taken as it is. */
export function targetHost(text: string, domain: string): string {
  const name = plainName(text);
  return name.includes('.') ? name : `${name}.${domain}`;
}

export function isIpAddress(text: string): boolean {
  return net.isIP(text) !== 0;
}
