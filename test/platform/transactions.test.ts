import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { DATABASE_FILE } from '../../src/data-dir.ts';
import type { Database } from '../../src/db/database.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { ApiError, fail } from '../../src/errors.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

const KEY = 'test.transactions.';

async function keys(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('operator_settings').select('key').where('key', 'like', `${KEY}%`).orderBy('key').execute();
  return rows.map((r) => r.key);
}

function put(db: Kysely<Database>, name: string) {
  return db
    .insertInto('operator_settings')
    .values({ key: `${KEY}${name}`, value: '1' })
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`transactions [${dialect}]`, () => {
    test('work started together: each commits or fails alone, with its own answer', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      const names = Array.from({ length: 20 }, (_, i) => `n${String(i).padStart(2, '0')}`);
      const outcomes = await Promise.allSettled(
        names.map((name, i) =>
          inTransaction(db, async (trx) => {
            await put(trx, name);
            await put(trx, `${name}-second`);
            if (i % 5 === 3) throw fail.badRequest(`refused ${name}`, 'name');
            return name;
          }),
        ),
      );
      const failed = names.filter((_, i) => i % 5 === 3);
      for (const [i, outcome] of outcomes.entries()) {
        const name = names[i] as string;
        if (failed.includes(name)) {
          assert.equal(outcome.status, 'rejected');
          const reason = (outcome as PromiseRejectedResult).reason;
          assert.ok(reason instanceof ApiError);
          assert.equal(reason.errors[0]?.reason, `refused ${name}`, 'the error of its own work');
        } else {
          assert.deepEqual(outcome, { status: 'fulfilled', value: name });
        }
      }
      const kept = names.filter((n) => !failed.includes(n)).flatMap((n) => [n, `${n}-second`]);
      assert.deepEqual(await keys(db), kept.map((k) => `${KEY}${k}`).sort(), 'nothing of the failed work, all of the rest');
    });

    test('a read outside a transaction neither waits for one in progress nor sees what it has not committed', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      await put(db, 'before');
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written = () => {};
      const wrote = new Promise<void>((resolve) => {
        written = resolve;
      });
      const writing = inTransaction(db, async (trx) => {
        await put(trx, 'inside');
        written();
        await held;
      });
      await wrote;
      assert.deepEqual(await keys(db), [`${KEY}before`], 'the read answers while the transaction is open');
      release();
      await writing;
      assert.deepEqual(await keys(db), [`${KEY}before`, `${KEY}inside`], 'and sees the commit once it is made');
    });

    test('a write outside a transaction waits for the one in progress and then lands', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const order: string[] = [];
      const writing = inTransaction(db, async (trx) => {
        await put(trx, 'first');
        await held;
        order.push('transaction');
      });
      await new Promise((resolve) => setImmediate(resolve));
      const single = put(db, 'second').then(() => order.push('write'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      await Promise.all([writing, single]);
      assert.deepEqual(await keys(db), [`${KEY}first`, `${KEY}second`]);
      if (dialect === 'sqlite') assert.deepEqual(order, ['transaction', 'write'], 'one writer at a time');
    });
  });
}

describe('transactions [sqlite]: a commit that fails', () => {
  test('ends only its own transaction: the one waiting for the writer goes on and commits', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const { db } = app.runtime.ctx;
    // A foreign key checked at commit (deferred) makes the commit itself fail.
    const failing = db.transaction().execute(async (trx) => {
      await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
      await trx
        .insertInto('ssh_keys')
        .values({ account_id: 1, user_id: 999_999, label: 'orphan', ssh_key: 'x', created: '2026-01-01T00:00:00' })
        .execute();
    });
    const waiting = db.transaction().execute(async (trx) => {
      await put(trx, 'after');
      await put(trx, 'after-second');
    });
    await assert.rejects(failing, /FOREIGN KEY/);
    await waiting;
    assert.deepEqual(await keys(db), [`${KEY}after`, `${KEY}after-second`]);
    assert.equal((await db.selectFrom('ssh_keys').select('id').where('label', '=', 'orphan').execute()).length, 0);
    await put(db, 'later');
    assert.equal((await keys(db)).length, 3, 'the writer is free again');
  });
});

describe('transactions [sqlite]: another process writing to the same database', () => {
  test('a transaction that reads, then writes, while another process commits a write waits for it, then commits', async (t) => {
    const app = await buildTestApp(t, { dialect: 'sqlite' });
    const { db } = app.runtime.ctx;
    const file = path.join(app.dataDir, DATABASE_FILE);
    let other: Promise<void> | undefined;
    await inTransaction(db, async (trx) => {
      await keys(trx);
      // Another process (a `cumulo` command on the server's database) writes meanwhile.
      other = new Promise<void>((resolve, reject) => {
        execFile(
          process.execPath,
          [
            '-e',
            `const { DatabaseSync } = require('node:sqlite');
             const db = new DatabaseSync(process.argv[1]);
             db.exec('PRAGMA busy_timeout = 5000');
             db.exec("insert into operator_settings (key, value) values ('${KEY}other', '1')");`,
            file,
          ],
          (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve()),
        );
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await put(trx, 'mine');
    });
    await other;
    assert.deepEqual(await keys(db), [`${KEY}mine`, `${KEY}other`]);
  });
});
