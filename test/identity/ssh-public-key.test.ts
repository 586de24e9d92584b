import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeSshKey, sshKeyProblem } from '../../src/domain/profile/ssh-public-key.ts';
import { KEYS } from './helpers.ts';

/** An SSH wire-format blob: each field as a 32-bit length and its bytes. */
function blob(...fields: (string | Buffer)[]): string {
  return Buffer.concat(
    fields.flatMap((f) => {
      const bytes = typeof f === 'string' ? Buffer.from(f, 'latin1') : f;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return [length, bytes];
    }),
  ).toString('base64');
}

// A pure function: no database involved, so no dialect loop.
describe('OpenSSH public key check', () => {
  test('accepts real keys of every supported type', () => {
    for (const key of Object.values(KEYS)) assert.equal(sshKeyProblem(key), null, key);
    const dss = `ssh-dss ${blob('ssh-dss', Buffer.alloc(129, 1), Buffer.alloc(21, 2), Buffer.alloc(128, 3), Buffer.alloc(128, 4))}`;
    assert.equal(sshKeyProblem(dss), null);
    for (const curve of ['nistp384', 'nistp521']) {
      const type = `ecdsa-sha2-${curve}`;
      assert.equal(sshKeyProblem(`${type} ${blob(type, curve, Buffer.alloc(97, 4))} comment`), null, curve);
    }
    assert.equal(sshKeyProblem(KEYS.ed25519.split(' ').slice(0, 2).join(' ')), null, 'the comment is optional');
    assert.equal(sshKeyProblem(`${KEYS.ed25519}\n`), null, 'a key read from its .pub file, with its line end');
  });

  test('refuses what is not a public key, saying why', () => {
    const body = KEYS.ed25519.split(' ')[1] ?? '';
    const cases: [string, RegExp][] = [
      ['', /supported/],
      ['hello world', /supported/],
      ['ssh-foo AAAA', /supported/],
      ['ssh-ed25519', /base64/],
      ['ssh-ed25519 not*base64', /base64/],
      [`ssh-ed25519 ${body.slice(0, -1)}`, /base64/],
      [`ssh-rsa ${body}`, /type ssh-rsa|malformed/],
      [`ssh-ed25519 ${blob('ssh-ed25519', Buffer.alloc(31))}`, /32 bytes/],
      [`ssh-ed25519 ${blob('ssh-ed25519', Buffer.alloc(32), 'extra')}`, /malformed/],
      [`ssh-ed25519 ${Buffer.from([0, 0, 0, 99, 1]).toString('base64')}`, /malformed/],
      [`ecdsa-sha2-nistp256 ${blob('ecdsa-sha2-nistp256', 'nistp384', Buffer.alloc(65))}`, /curve/],
      [`ssh-rsa ${blob('ssh-dss', 'a', 'b')}`, /type ssh-rsa/],
      [`ssh-ed25519 ${'A'.repeat(20000)}`, /at most/],
      [`${KEYS.ed25519}\n${KEYS.rsa}`, /one line/],
      [`${KEYS.ed25519.split(' ').slice(0, 2).join(' ')} me\r\ncommand="x"`, /one line/],
      [`${KEYS.ed25519}\u001b]0;title\u0007`, /one line/],
    ];
    for (const [key, reason] of cases) {
      const problem = sshKeyProblem(key);
      assert.ok(problem, `accepted: ${key.slice(0, 60)}`);
      assert.match(problem, reason, key.slice(0, 60));
    }
  });

  test('normalizes spacing', () => {
    assert.equal(normalizeSshKey(`\n ssh-ed25519   AAAA  me@host \n`), 'ssh-ed25519 AAAA me@host');
  });
});
