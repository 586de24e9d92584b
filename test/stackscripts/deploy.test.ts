import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AccountScope } from '../../src/domain/account/principal.ts';
import {
  checkStackScriptDeploy,
  recordStackScriptDeployment,
  releaseStackScriptDeployment,
} from '../../src/domain/stackscripts/stackscript-deploy.ts';
import { ApiError } from '../../src/errors.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createScript, DEBIAN, UBUNTU } from './helpers.ts';

const UDF_SCRIPT = [
  '#!/bin/bash',
  '# <UDF name="pw" label="Password" example="hunter2" />',
  '# <UDF name="release" label="Release" oneOf="stable,beta" default="stable" />',
  '# <UDF name="extras" label="Extras" manyOf="git,vim" default="" />',
].join('\n');

type Spec = Parameters<typeof checkStackScriptDeploy>[3];

/** The problems checkStackScriptDeploy reports, as field: reason; [] when it passes. */
async function problems(app: TestApp, scope: AccountScope, spec: Spec): Promise<{ field?: string; reason: string }[]> {
  const { ctx } = app.runtime;
  try {
    await checkStackScriptDeploy(ctx.db, ctx, scope, spec);
    return [];
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.status, 400);
    return e.errors;
  }
}

function fields(list: { field?: string }[]): (string | undefined)[] {
  return list.map((p) => p.field);
}

function scopeOfCaller(c: { accountId: number }, restrictedUserId: number | null = null): AccountScope {
  return { accountId: c.accountId, restrictedUserId };
}

async function viewCounts(app: TestApp, id: number) {
  const res = await app.request('GET', `/v4/node/stackscripts/${id}`);
  assert.equal(res.status, 200);
  return { total: res.body.deployments_total, active: res.body.deployments_active };
}

for (const dialect of DIALECTS) {
  describe(`stackscript deploy checks [${dialect}]`, () => {
    test('the script must be visible: own or public; another account private or missing is a 400 on stackscript_id', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const other = await newAccount(app);
      const own = await createScript(app, me, { script: '#!/bin/sh\n' });
      const theirPublic = await createScript(app, other, { script: '#!/bin/sh\n', is_public: true });
      const theirPrivate = await createScript(app, other, { script: '#!/bin/sh\n' });
      const scope = scopeOfCaller(me);
      const spec = (stackscriptId: number): Spec => ({ stackscriptId, image: DEBIAN, data: undefined });
      assert.deepEqual(await problems(app, scope, spec(own.id)), []);
      assert.deepEqual(await problems(app, scope, spec(theirPublic.id)), []);
      assert.deepEqual(fields(await problems(app, scope, spec(theirPrivate.id))), ['stackscript_id']);
      assert.deepEqual(fields(await problems(app, scope, spec(987654))), ['stackscript_id']);

      const restricted = await newUser(app, me.accountId, { restricted: true });
      const withoutGrant = await problems(app, scopeOfCaller(me, restricted.userId), spec(own.id));
      assert.deepEqual(fields(withoutGrant), ['stackscript_id'], 'a restricted user needs a grant on a private script');
      assert.deepEqual(await problems(app, scopeOfCaller(me, restricted.userId), spec(theirPublic.id)), []);
    });

    test("image is required and must be one of the script's images unless it takes any/all", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const scope = scopeOfCaller(me);
      const debianOnly = await createScript(app, me, { script: '#!/bin/sh\n', images: [DEBIAN] });
      const anything = await createScript(app, me, { script: '#!/bin/sh\n', images: ['any/all'] });
      const none = await problems(app, scope, { stackscriptId: debianOnly.id, image: null, data: undefined });
      assert.deepEqual(fields(none), ['image']);
      assert.match(none[0]?.reason ?? '', /node\/debian12/);
      const wrong = await problems(app, scope, { stackscriptId: debianOnly.id, image: UBUNTU, data: undefined });
      assert.deepEqual(fields(wrong), ['image']);
      assert.deepEqual(await problems(app, scope, { stackscriptId: debianOnly.id, image: DEBIAN, data: {} }), []);
      assert.deepEqual(await problems(app, scope, { stackscriptId: anything.id, image: UBUNTU, data: undefined }), []);
      assert.deepEqual(fields(await problems(app, scope, { stackscriptId: anything.id, image: null, data: undefined })), [
        'image',
      ]);
    });

    test('data is checked against the UDFs, every problem at once under stackscript_data.<name>', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const scope = scopeOfCaller(me);
      const script = await createScript(app, me, { script: UDF_SCRIPT });
      const check = (data: Record<string, unknown> | undefined) =>
        problems(app, scope, { stackscriptId: script.id, image: DEBIAN, data });
      assert.deepEqual(await check({ pw: 'secret' }), []);
      assert.deepEqual(await check({ pw: 'secret', release: 'beta', extras: 'vim,git' }), []);
      assert.deepEqual(fields(await check(undefined)), ['stackscript_data.pw']);
      assert.deepEqual(fields(await check({ pw: 7, release: 'nightly', extras: 'emacs', colour: 'red' })), [
        'stackscript_data.pw',
        'stackscript_data.release',
        'stackscript_data.extras',
        'stackscript_data.colour',
      ]);
    });

    test('the checks follow a revised script', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const scope = scopeOfCaller(me);
      const script = await createScript(app, me, { script: UDF_SCRIPT, images: [DEBIAN] });
      const res = await app.request('PUT', `/v4/node/stackscripts/${script.id}`, {
        body: { script: '#!/bin/sh\n# <UDF name="size" label="Size" oneOf="s,m" />\n', images: [UBUNTU] },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(fields(await problems(app, scope, { stackscriptId: script.id, image: DEBIAN, data: { size: 's' } })), [
        'image',
      ]);
      assert.deepEqual(fields(await problems(app, scope, { stackscriptId: script.id, image: UBUNTU, data: { pw: 'x' } })), [
        'stackscript_data.size',
        'stackscript_data.pw',
      ]);
      assert.deepEqual(await problems(app, scope, { stackscriptId: script.id, image: UBUNTU, data: { size: 'm' } }), []);
    });

    test('deployments: total and active count up, also under concurrent deployments; release counts active down', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const script = await createScript(app, me);
      const other = await createScript(app, me, { label: 'untouched' });
      const { db } = app.runtime.ctx;
      await recordStackScriptDeployment(db, script.id);
      assert.deepEqual(await viewCounts(app, script.id), { total: 1, active: 1 });
      await Promise.all(Array.from({ length: 10 }, () => recordStackScriptDeployment(db, script.id)));
      assert.deepEqual(await viewCounts(app, script.id), { total: 11, active: 11 });
      await db.transaction().execute((trx) => recordStackScriptDeployment(trx, script.id));
      assert.deepEqual(await viewCounts(app, script.id), { total: 12, active: 12 });
      await releaseStackScriptDeployment(db, script.id);
      assert.deepEqual(await viewCounts(app, script.id), { total: 12, active: 11 });
      assert.deepEqual(await viewCounts(app, other.id), { total: 0, active: 0 });
      await releaseStackScriptDeployment(db, other.id);
      assert.deepEqual(await viewCounts(app, other.id), { total: 0, active: 0 }, 'never below zero');
    });
  });
}
