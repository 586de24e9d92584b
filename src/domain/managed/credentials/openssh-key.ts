import crypto from 'node:crypto';

/** The OpenSSH formats of an ed25519 key pair made with node:crypto, which writes neither. */

const ED25519 = 'ssh-ed25519';
/** PKCS #8 (RFC 8410) of an ed25519 private key up to its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PRIVATE_KEY_MAGIC = 'openssh-key-v1\0';
const PEM_LINE = 70;

/** One field of the SSH wire format: a 32-bit big-endian length, then the bytes. */
function sshString(bytes: Buffer | string): Buffer {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

function uint32(n: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n);
  return out;
}

/** The ed25519 key pair of a 32-byte seed (RFC 8032's private key). */
export function ed25519KeyPair(seed: Buffer): crypto.KeyPairKeyObjectResult {
  if (seed.length !== 32) throw new Error('an ed25519 seed is 32 bytes');
  const privateKey = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: crypto.createPublicKey(privateKey) };
}

function rawKeys(pair: crypto.KeyPairKeyObjectResult): { publicKey: Buffer; seed: Buffer } {
  if (pair.publicKey.asymmetricKeyType !== 'ed25519') throw new Error('not an ed25519 key pair');
  const { x, d } = pair.privateKey.export({ format: 'jwk' });
  if (!x || !d) throw new Error('the ed25519 key pair lacks its key material');
  return { publicKey: Buffer.from(x, 'base64url'), seed: Buffer.from(d, 'base64url') };
}

function publicBlob(publicKey: Buffer): Buffer {
  return Buffer.concat([sshString(ED25519), sshString(publicKey)]);
}

/** The public key as an authorized_keys line: `ssh-ed25519 <base64 blob> <comment>`. */
export function openSshPublicKey(pair: crypto.KeyPairKeyObjectResult, comment: string): string {
  return `${ED25519} ${publicBlob(rawKeys(pair).publicKey).toString('base64')} ${comment}`;
}

/**
 * The private key as `ssh -i` reads it (`-----BEGIN OPENSSH PRIVATE KEY-----`, not passphrase
 * protected: it is kept sealed instead). Layout from OpenSSH's PROTOCOL.key; `check` is its 4 random
 * check bytes.
 */
export function openSshPrivateKey(pair: crypto.KeyPairKeyObjectResult, comment: string, check: Buffer): string {
  const { publicKey, seed } = rawKeys(pair);
  const section = Buffer.concat([
    check,
    check,
    sshString(ED25519),
    sshString(publicKey),
    sshString(Buffer.concat([seed, publicKey])),
    sshString(comment),
  ]);
  // Padded with 1, 2, 3, ... to the cipher's block size (8 for none).
  const padding = Buffer.from(Array.from({ length: (8 - (section.length % 8)) % 8 }, (_, i) => i + 1));
  const body = Buffer.concat([
    Buffer.from(PRIVATE_KEY_MAGIC, 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(publicBlob(publicKey)),
    sshString(Buffer.concat([section, padding])),
  ]).toString('base64');
  const lines = body.match(new RegExp(`.{1,${PEM_LINE}}`, 'g')) ?? [];
  return ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n');
}
