import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type StartFacts, startBanner } from '../../src/cli/start-banner.ts';
import { VERSION } from '../../src/version.ts';

const TOKEN = 'ab'.repeat(32);
const facts: StartFacts = {
  address: 'http://127.0.0.1:8080',
  database: '/data/cumulo.sqlite',
  bootstrap: { kind: 'existing' },
  fixedToken: false,
  fixedPassword: false,
  consoleBuilt: true,
};
const HEAD = [
  `Cumulo is ready at http://127.0.0.1:8080/v4 (version ${VERSION}, database: /data/cumulo.sqlite)`,
  'API document: http://127.0.0.1:8080/docs (OpenAPI: http://127.0.0.1:8080/v4/openapi.json)',
];

/** The first-start token as .ci/run reads it: alone on a line, indented by two spaces. */
const ciToken = (banner: string) => /^ {2}([0-9a-f]{64})$/m.exec(banner)?.[1];

describe('start banner', () => {
  test('every start names the API base, the API document and the console', () => {
    const banner = startBanner(facts);
    assert.deepEqual(banner.split('\n'), [...HEAD, 'Web console: http://127.0.0.1:8080/', '']);
    assert.equal(/^Cumulo is ready at ([^ ]*) /m.exec(banner)?.[1], 'http://127.0.0.1:8080/v4');
  });

  test('a first start adds the password and token made up for admin, each alone on an indented line', () => {
    const banner = startBanner({
      ...facts,
      bootstrap: { kind: 'created', token: TOKEN, username: 'admin', password: '0123456789abcdef01234567' },
    });
    const lines = banner.split('\n');
    assert.deepEqual(lines.slice(0, 3), [...HEAD, 'Web console: http://127.0.0.1:8080/']);
    assert.ok(lines.includes('  0123456789abcdef01234567'), banner);
    assert.equal(ciToken(banner), TOKEN);
  });

  test('with CUMULO_BOOTSTRAP_TOKEN and CUMULO_BOOTSTRAP_PASSWORD: no secret printed, the console says how to sign in', () => {
    const created = { kind: 'created', token: TOKEN, username: 'admin' } as const;
    const both = startBanner({ ...facts, bootstrap: created, fixedToken: true, fixedPassword: true });
    assert.deepEqual(both.split('\n'), [
      ...HEAD,
      'Web console: http://127.0.0.1:8080/ (sign in as "admin" with the password in CUMULO_BOOTSTRAP_PASSWORD)',
      '',
    ]);
    const later = startBanner({ ...facts, fixedToken: true, fixedPassword: true });
    assert.equal(later, both, 'later starts say the same');
    const tokenOnly = startBanner({ ...facts, bootstrap: created, fixedToken: true });
    assert.equal(ciToken(tokenOnly), undefined);
    assert.match(tokenOnly, /^Web console: http:\/\/127\.0\.0\.1:8080\/ \(admin has no password yet: .*set-password/m);
    const passwordOnly = startBanner({ ...facts, bootstrap: created, fixedPassword: true });
    assert.equal(ciToken(passwordOnly), TOKEN, 'a made-up token is still shown');
    assert.match(passwordOnly, /^Web console: .*CUMULO_BOOTSTRAP_PASSWORD\)$/m);
  });

  test('a console that is not built says how to build it', () => {
    assert.match(
      startBanner({ ...facts, consoleBuilt: false }),
      /^Web console: http:\/\/127\.0\.0\.1:8080\/ \(not built: run npm run build:console/m,
    );
  });

  test('real nodes add how they run, after the console line', () => {
    const compute = 'QEMU under TCG (no guest booted under KVM within 1 s), user networking';
    assert.deepEqual(startBanner({ ...facts, compute }).split('\n'), [
      ...HEAD,
      'Web console: http://127.0.0.1:8080/',
      `Nodes: ${compute}`,
      '',
    ]);
  });
});
