import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { admin, newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { FIXTURES } from '../helpers/fixtures.ts';
import { eventsOf } from '../identity/helpers.ts';
import { createScript, DEBIAN, fieldsOf, SCRIPT, UBUNTU } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`stackscripts: create, view, update, delete [${dialect}]`, () => {
    test('create answers the whole object; view shows the same; a stackscript_create event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const created = await createScript(app, me, {
        label: 'mysql',
        description: 'Installs MySQL',
        rev_note: 'first',
        images: [DEBIAN, UBUNTU, DEBIAN],
      });
      assert.equal(typeof created.id, 'number');
      assert.equal(created.username, me.username);
      assert.equal(created.user_gravatar_id, crypto.createHash('md5').update(me.username).digest('hex'));
      assert.equal(created.label, 'mysql');
      assert.equal(created.description, 'Installs MySQL');
      assert.equal(created.rev_note, 'first');
      assert.deepEqual(created.images, [DEBIAN, UBUNTU], 'each image once, in the order given');
      assert.equal(created.is_public, false);
      assert.equal(created.mine, true);
      assert.equal(created.deployments_total, 0);
      assert.equal(created.deployments_active, 0);
      assert.equal(created.ordinal, 0, 'scripts are not ordered for a marketplace here');
      assert.equal(created.logo_url, '');
      assert.equal(created.script, SCRIPT);
      assert.deepEqual(created.user_defined_fields, [{ label: 'Password', name: 'pw', example: 'hunter2' }]);
      assert.match(created.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      assert.equal(created.updated, created.created);

      const view = await app.request('GET', `/v4/node/stackscripts/${created.id}`);
      assert.equal(view.status, 200);
      assert.deepEqual(view.body, created);

      const events = await eventsOf(app, me.accountId, 'stackscript_create');
      assert.equal(events.length, 1);
      assert.equal(events[0]?.entity_type, 'stackscript');
      assert.equal(events[0]?.entity_id, created.id);
      assert.equal(events[0]?.entity_url, `/v4/node/stackscripts/${created.id}`);
      assert.equal(events[0]?.username, me.username);
    });

    test("a field's oneof, manyof, default, header and required are as its tag declares them, wherever the script is shown", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const script = [
        '#!/bin/bash',
        '# <UDF name="soa" label="Domain settings" header="Yes" default="Yes" required="Yes" />',
        '# <UDF name="release" label="Release" oneOf="stable,beta" default="stable" />',
        '# <UDF name="extras" label="Extras" manyof="git,vim" default="" />',
        '# <UDF name="token" label="API token" example="abc123" required="No" />',
      ].join('\n');
      const fields = [
        { label: 'Domain settings', name: 'soa', example: '', default: 'Yes', header: 'Yes', required: 'Yes' },
        { label: 'Release', name: 'release', example: '', oneof: 'stable,beta', default: 'stable' },
        { label: 'Extras', name: 'extras', example: '', manyof: 'git,vim', default: '' },
        { label: 'API token', name: 'token', example: 'abc123', required: 'No' },
      ];
      const created = await createScript(app, me, { script });
      assert.deepEqual(created.user_defined_fields, fields);
      const view = await app.request('GET', `/v4/node/stackscripts/${created.id}`);
      assert.deepEqual(view.body.user_defined_fields, fields);
      const listed = await app.request('GET', '/v4/node/stackscripts', {
        headers: { 'x-filter': JSON.stringify({ mine: true }) },
      });
      assert.deepEqual(listed.body.data[0].user_defined_fields, fields);
      // Sent back whole with a new label, the script is taken as it is.
      const updated = await app.request('PUT', `/v4/node/stackscripts/${created.id}`, {
        body: { ...view.body, label: 'with-fields' },
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.headers.warning, undefined);
      assert.deepEqual(updated.body, { ...view.body, label: 'with-fields', updated: updated.body.updated });
    });

    test('defaults: empty description and rev_note, private; read-only fields sent are ignored', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const res = await createScript(app, me, { id: 999999, username: 'someone', deployments_total: 7, mine: false });
      assert.equal(res.description, '');
      assert.equal(res.rev_note, '');
      assert.equal(res.is_public, false);
      assert.notEqual(res.id, 999999);
      assert.equal(res.username, me.username);
      assert.equal(res.deployments_total, 0);
      assert.equal(res.mine, true);
    });

    test('create validates label, script and images, naming each field', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const post = (body: Record<string, unknown>) =>
        app.request('POST', '/v4/node/stackscripts', {
          body: { label: 'valid-label', script: SCRIPT, images: [DEBIAN], ...body },
        });
      assert.deepEqual(fieldsOf(await app.request('POST', '/v4/node/stackscripts', { body: {} })).sort(), [
        'images',
        'label',
        'script',
      ]);
      assert.deepEqual(fieldsOf(await post({ label: 'ab' })), ['label']);
      assert.deepEqual(fieldsOf(await post({ label: 'x'.repeat(129) })), ['label']);
      assert.deepEqual(fieldsOf(await post({ images: [] })), ['images']);
      assert.deepEqual(fieldsOf(await post({ images: 'node/debian12' })), ['images']);
      assert.deepEqual(fieldsOf(await post({ is_public: 'yes' })), ['is_public']);

      const unknown = await post({ images: [DEBIAN, 'node/nonesuch', 'private/0'] });
      assert.deepEqual(fieldsOf(unknown), ['images[1]', 'images[2]']);
      assert.match(unknown.body.errors[0].reason, /node\/nonesuch/);

      const noShebang = await post({ script: 'echo hi' });
      assert.deepEqual(fieldsOf(noShebang), ['script']);
      assert.match(noShebang.body.errors[0].reason, /#!/);
      const badTag = await post({ script: '#!/bin/sh\n\n# <UDF name="x" label="y" oneOf="a,b" default="c" />' });
      assert.deepEqual(fieldsOf(badTag), ['script']);
      assert.match(badTag.body.errors[0].reason, /line 3/);

      const list = await app.request('GET', '/v4/node/stackscripts', { token: me.token });
      assert.equal(list.body.results, 0, 'nothing was stored');
    });

    test("images may be the account's private images, not another account's", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const other = await newAccount(app);
      const mine = await FIXTURES.imageId?.(app, me);
      const theirs = await FIXTURES.imageId?.(app, other);
      const ok = await createScript(app, me, { images: [mine, DEBIAN] });
      assert.deepEqual(ok.images, [mine, DEBIAN]);
      const res = await app.request('POST', '/v4/node/stackscripts', {
        token: me.token,
        body: { label: 'nope', script: SCRIPT, images: [theirs] },
      });
      assert.deepEqual(fieldsOf(res), ['images[0]']);
    });

    test('update changes what the body names; events update, revise and publicize', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const script = await createScript(app, me, { images: [DEBIAN] });
      const url = `/v4/node/stackscripts/${script.id}`;

      const labelled = await app.request('PUT', url, { body: { label: 'renamed', images: [UBUNTU], description: 'd' } });
      assert.equal(labelled.status, 200);
      assert.equal(labelled.body.label, 'renamed');
      assert.deepEqual(labelled.body.images, [UBUNTU]);
      assert.equal(labelled.body.description, 'd');
      assert.equal(labelled.body.script, SCRIPT, 'the script is untouched');
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_update')).length, 1);
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_revise')).length, 0);

      const newScript = '#!/bin/sh\n# <UDF name="size" label="Size" manyOf="s,m,l" default="m" />\n';
      const revised = await app.request('PUT', url, { body: { script: newScript, rev_note: 'sizes' } });
      assert.equal(revised.status, 200);
      assert.equal(revised.body.script, newScript);
      assert.equal(revised.body.rev_note, 'sizes');
      assert.deepEqual(revised.body.user_defined_fields, [
        { label: 'Size', name: 'size', example: '', manyof: 's,m,l', default: 'm' },
      ]);
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_revise')).length, 1);
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_update')).length, 2);

      const published = await app.request('PUT', url, { body: { is_public: true } });
      assert.equal(published.status, 200);
      assert.equal(published.body.is_public, true);
      const publicize = await eventsOf(app, me.accountId, 'stackscript_publicize');
      assert.equal(publicize.length, 1);
      assert.equal(publicize[0]?.entity_id, script.id);
      assert.equal(publicize[0]?.entity_label, 'renamed');

      const again = await app.request('PUT', url, { body: { is_public: true, label: 'renamed' } });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, published.body, 'nothing changed');
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_publicize')).length, 1, 'no second publicize');
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_update')).length, 3, 'no event for a change of nothing');
    });

    test('a public script cannot be made private again, nor deleted', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const script = await createScript(app, me, { is_public: true });
      const url = `/v4/node/stackscripts/${script.id}`;
      const res = await app.request('PUT', url, { body: { is_public: false, label: 'changed' } });
      assert.deepEqual(fieldsOf(res), ['is_public']);
      assert.match(res.body.errors[0].reason, /cannot be made private/);
      assert.equal((await app.request('GET', url)).body.label, 'a-stackscript', 'nothing changed');
      const del = await app.request('DELETE', url);
      assert.equal(del.status, 400);
      assert.match(del.body.errors[0].reason, /public StackScript cannot be deleted/);
      assert.equal((await app.request('GET', url)).status, 200);
    });

    test('update validates images and script; nothing changes when one is wrong', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const script = await createScript(app, me);
      const url = `/v4/node/stackscripts/${script.id}`;
      assert.deepEqual(fieldsOf(await app.request('PUT', url, { body: { label: 'good-one', images: ['node/nope'] } })), [
        'images[0]',
      ]);
      assert.deepEqual(fieldsOf(await app.request('PUT', url, { body: { label: 'good-one', script: '#!/bin/sh\n<UDF' } })), [
        'script',
      ]);
      assert.deepEqual(fieldsOf(await app.request('PUT', url, { body: { images: [] } })), ['images']);
      assert.deepEqual(fieldsOf(await app.request('PUT', url, { body: { label: 'no' } })), ['label']);
      const view = await app.request('GET', url);
      assert.deepEqual(view.body, script);
      assert.equal((await eventsOf(app, me.accountId, 'stackscript_update')).length, 0);
      const empty = await app.request('PUT', url, { body: {} });
      assert.equal(empty.status, 200, JSON.stringify(empty.body));
      assert.deepEqual(empty.body, script);
    });

    test('delete removes a private script with a stackscript_delete event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const script = await createScript(app, me, { label: 'short-lived' });
      const url = `/v4/node/stackscripts/${script.id}`;
      const res = await app.request('DELETE', url);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      assert.equal((await app.request('GET', url)).status, 404);
      assert.equal((await app.request('DELETE', url)).status, 404);
      const events = await eventsOf(app, me.accountId, 'stackscript_delete');
      assert.equal(events.length, 1);
      assert.equal(events[0]?.entity_label, 'short-lived');
    });

    test('another account: its private script is 404, its public one readable but not changeable (403)', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const other = await newAccount(app);
      const hidden = await createScript(app, other, { label: 'their-private' });
      const shared = await createScript(app, other, { label: 'their-public', is_public: true });
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await app.request(method, `/v4/node/stackscripts/${hidden.id}`, {
          token: me.token,
          body: method === 'PUT' ? { label: 'mine-now' } : undefined,
        });
        assert.equal(res.status, 404, `${method} another account's private script`);
      }
      const view = await app.request('GET', `/v4/node/stackscripts/${shared.id}`, { token: me.token });
      assert.equal(view.status, 200);
      assert.equal(view.body.mine, false);
      assert.equal(view.body.username, other.username);
      assert.equal(
        (await app.request('PUT', `/v4/node/stackscripts/${shared.id}`, { token: me.token, body: { label: 'mine-now' } })).status,
        403,
      );
      assert.equal((await app.request('DELETE', `/v4/node/stackscripts/${shared.id}`, { token: me.token })).status, 403);
      assert.equal((await app.request('GET', `/v4/node/stackscripts/${shared.id}`, { token: other.token })).body.mine, true);
      assert.equal((await app.request('GET', '/v4/node/stackscripts/2147483647')).status, 404);
      assert.equal((await app.request('GET', '/v4/node/stackscripts/abc')).status, 404);
    });
  });
}
