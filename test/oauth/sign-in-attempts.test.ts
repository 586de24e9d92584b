import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addressKey,
  FAILURE_WINDOW_MS,
  FAILURES_BEFORE_SLOWING,
  FAILURES_PER_ADDRESS,
  FAILURES_PER_USER_AND_ADDRESS,
  SignInAttempts,
} from '../../src/domain/oauth/sign-in-attempts.ts';
import { FixedClock } from '../../src/time/clock.ts';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply, type TestApp } from '../helpers/app.ts';
import { givePassword, pkcePair, postSignIn } from './helpers.ts';

const { challenge } = pkcePair();

function signIn(app: TestApp, username: string, address: string, password?: string): Promise<Reply> {
  return postSignIn(app, { username, challenge, ...(password ? { password } : {}) }, address);
}

function assertRefused(res: Reply, what: string) {
  assert.equal(res.status, 429, `${what}: ${res.status}`);
  assert.ok(Number(res.headers['retry-after']) > 0, what);
  assert.match(res.body, /Too many wrong passwords/, what);
}

test('an IPv6 address counts as its /64; an IPv4 address, mapped or not, as itself', () => {
  assert.equal(addressKey('203.0.113.9'), '203.0.113.9');
  assert.equal(addressKey('::ffff:203.0.113.9'), '203.0.113.9');
  assert.equal(addressKey('2001:db8:0:7::1'), '2001:db8:0:7::/64');
  assert.equal(addressKey('2001:DB8:0:7:ffff:1:2:3'), '2001:db8:0:7::/64');
  assert.equal(addressKey('2001:db8::'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});

test("a user's wrong passwords from everywhere slow its checks down, doubling to a bound, and never refuse", () => {
  const attempts = new SignInAttempts(new FixedClock(Date.parse('2026-01-01T00:00:00Z')));
  const delays: number[] = [];
  for (let i = 0; i < FAILURES_BEFORE_SLOWING + 8; i++) {
    const verdict = attempts.verdict('Admin', `198.51.100.${i}`);
    assert.equal(verdict.kind, 'check', `attempt ${i}`);
    if (verdict.kind === 'check') delays.push(verdict.delayMs);
    attempts.failed('admin', `198.51.100.${i}`);
  }
  assert.deepEqual(delays, [...Array(FAILURES_BEFORE_SLOWING).fill(0), 250, 500, 1000, 2000, 4000, 4000, 4000, 4000]);
  assert.deepEqual(attempts.verdict('someone-else', '198.51.100.1'), { kind: 'check', delayMs: 0 });
});

for (const dialect of DIALECTS) {
  describe(`sign-in attempts [${dialect}]`, () => {
    test('wrong passwords for a user from ten addresses never lock out its right password from another', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      for (let i = 1; i <= 10; i++) {
        assert.equal((await signIn(app, owner.username, `198.51.100.${i}`, `wrong ${i} pass`)).status, 401);
      }
      assert.equal((await signIn(app, owner.username, '198.51.100.11')).status, 302, 'an eleventh address');
      assert.equal((await signIn(app, owner.username, '198.51.100.1')).status, 302, 'one of the ten');
    });

    test('right passwords do not count: a dozen sign-ins from one address all pass', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS + 2; i++) {
        assert.equal((await signIn(app, owner.username, '198.51.100.7')).status, 302, `sign-in ${i}`);
      }
    });

    test('ten wrong passwords for a user from one address refuse that pair for five minutes, no one else', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      const other = await newAccount(app);
      await givePassword(app, owner.username);
      await givePassword(app, other.username);
      for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i++) {
        assert.equal((await signIn(app, owner.username, '198.51.100.7', `wrong ${i} pass`)).status, 401);
      }
      assertRefused(await signIn(app, owner.username.toUpperCase(), '198.51.100.7'), 'the right password, same pair');
      assert.equal((await signIn(app, owner.username, '198.51.100.8')).status, 302, 'the user from elsewhere');
      assert.equal((await signIn(app, other.username, '198.51.100.7')).status, 302, 'another user from there');
      app.runtime.ctx.clock.advance(FAILURE_WINDOW_MS);
      assert.equal((await signIn(app, owner.username, '198.51.100.7')).status, 302, 'five minutes later');
    });

    test('thirty wrong passwords from one address (a /64 for IPv6) refuse it for every user, no other address', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      await givePassword(app, owner.username);
      for (const [from, elsewhere] of [
        ['198.51.100.9', '198.51.100.10'],
        ['2001:db8:0:9::1', '2001:db8:0:a::1'],
      ] as const) {
        for (let i = 0; i < FAILURES_PER_ADDRESS; i++) {
          const res = await signIn(app, `guess${i}`, i % 2 && from.includes(':') ? from.replace('::1', '::2') : from);
          assert.equal(res.status, 401);
        }
        assertRefused(await signIn(app, owner.username, from), `${from}, a user it never tried`);
        assert.equal((await signIn(app, owner.username, elsewhere)).status, 302, `${elsewhere}`);
      }
    });
  });
}
