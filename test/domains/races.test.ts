import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { createDomain, domainBody, freshDomain, renderedZone, serialOf } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`parallel domain requests [${dialect}]`, () => {
    test('two accounts adding the same domain at once, many times over: one 200 and one 400 on domain each time', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await newAccount(app);
      const b = await newAccount(app);
      for (let round = 0; round < 10; round++) {
        const domain = freshDomain('race');
        const replies = await Promise.all(
          [a, b].map((caller, i) =>
            app.request('POST', '/v4/domains', {
              token: caller.token,
              body: domainBody({ domain: i ? domain.toUpperCase() : domain }),
            }),
          ),
        );
        const statuses = replies.map((r) => r.status).sort();
        assert.deepEqual(statuses, [200, 400], JSON.stringify(replies.map((r) => r.body)));
        const refused = replies.find((r) => r.status === 400);
        assert.equal(refused?.body.errors[0].field, 'domain');
        const held = await app.runtime.ctx.db.selectFrom('domains').select('id').where('domain', '=', domain).execute();
        assert.equal(held.length, 1);
      }
    });

    test('20 record creates on one domain at once: all stored, one serial each, the last render holds them all', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const zone = await createDomain(app);
      const first = serialOf(await renderedZone(app, zone.id));
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.request('POST', `/v4/domains/${zone.id}/records`, {
            body: { type: 'A', name: `h${i}`, target: `192.0.2.${i + 1}` },
          }),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.status),
        Array(20).fill(200),
      );
      await runDueJobs(app);
      const lines = await renderedZone(app, zone.id);
      assert.equal(serialOf(lines), first + 20, 'each change raised the serial once');
      assert.equal(lines.filter((l) => / IN A /.test(l)).length, 20);
    });
  });
}
