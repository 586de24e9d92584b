/** OpenSSH public key types accepted on profiles, with the number of length-prefixed fields in each key blob. */
const KEY_FIELDS: Readonly<Record<string, number>> = {
  'ssh-rsa': 3, // type, e, n
  'ssh-dss': 5, // type, p, q, g, y
  'ssh-ed25519': 2, // type, key
  'ecdsa-sha2-nistp256': 3, // type, curve, point
  'ecdsa-sha2-nistp384': 3,
  'ecdsa-sha2-nistp521': 3,
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const MAX_KEY_LENGTH = 16 * 1024;

/** The length-prefixed fields of an SSH wire-format blob, or null when they do not fill it exactly. */
function wireFields(blob: Buffer): Buffer[] | null {
  const fields: Buffer[] = [];
  let offset = 0;
  while (offset < blob.length) {
    if (offset + 4 > blob.length) return null;
    const length = blob.readUInt32BE(offset);
    offset += 4;
    if (length > blob.length - offset) return null;
    fields.push(blob.subarray(offset, offset + length));
    offset += length;
  }
  return fields;
}

/** Why `text` is not an OpenSSH public key (`<type> <base64> [comment]`), or null when it is one. */
export function sshKeyProblem(text: string): string | null {
  if (text.length > MAX_KEY_LENGTH) return `Must be at most ${MAX_KEY_LENGTH} characters`;
  // A key is one line of authorized_keys: a line break inside would add lines of its own there.
  if (/[^\P{Cc}\t]/u.test(text.trim())) {
    return 'Must be one line: a single key, without line breaks or control characters';
  }
  const [type, body] = text.trim().split(/\s+/);
  const expected = type === undefined ? undefined : KEY_FIELDS[type];
  if (!type || expected === undefined) {
    return `Not a supported public key: it must begin with one of ${Object.keys(KEY_FIELDS).join(', ')}`;
  }
  if (!body || body.length % 4 !== 0 || !BASE64.test(body)) return 'Not a valid public key: the key data is not base64';
  const fields = wireFields(Buffer.from(body, 'base64'));
  if (!fields || fields.length !== expected) return 'Not a valid public key: the key data is malformed';
  if (fields[0]?.toString('latin1') !== type) return `Not a valid public key: the key data is not of type ${type}`;
  if (type === 'ssh-ed25519' && fields[1]?.length !== 32) return 'Not a valid public key: an ed25519 key holds 32 bytes';
  if (type.startsWith('ecdsa-') && fields[1]?.toString('latin1') !== type.slice('ecdsa-sha2-'.length)) {
    return 'Not a valid public key: the curve does not match the key type';
  }
  return null;
}

/** The key as stored: type, data and comment separated by single spaces. */
export function normalizeSshKey(text: string): string {
  return text.trim().split(/\s+/).join(' ');
}
