/**
 * Client compatibility: the requests official client libraries sent while driven as their users
 * drive them (test/clients/recorded/, kept from ../shared/clients by scripts/shared-copies.ts),
 * replayed client by client, in order, each client on a fresh server of each database. Every
 * request recorded `accepted` must get a 2xx, every `refused` one a 4xx in the error envelope.
 * One failure lists every request that went otherwise.
 *
 * The server: seeded (CUMULO_SEED), so the clock moves a step a request and the jobs that fell
 * due run before each request, and every operation takes 0 seconds (PUT /admin/transitions):
 * whatever a request started has finished by the next one, so a client's polling needs no time.
 *
 * Ids (test/clients/id-map.ts, body-ids.ts, path-params.ts): the recording was not made with a
 * seed this server reproduces (its OAuth client ids are not what seeds 0 to 200 draw), so nothing
 * assumes its ids are ours, though a fresh server gives mostly the same. A value the recorded `answer` of a line names maps onto the same field of this
 * server's answer to that line, kept per kind (the reference's parameter names: `nodeId`,
 * `diskId`, `username`, `address` ...). Path parameters, found by the recorded operation's
 * template (for a path the reference lacks, the template matching most of its start), and ids in
 * bodies and X-Filters, found by the API's naming (`<thing>_id`, `<thing>s: [...]`, `{type, id}`,
 * grants' `<thing>: [{id}]`), are replaced by ours. Ids the client read from answers the
 * recording leaves out (a node's disks and configs, an event) are guessed from what this server
 * listed of that kind, for accepted lines only; refused lines use known values or the recorded one.
 *
 * Credentials (the recording does not say which token went with a request): accepted requests go
 * with the bootstrap user's full token (the recording's user is `admin`). A refused write goes
 * with the narrow token the sequence made last and has not deleted, if any, else the full one. A
 * refused GET goes with the full token; if that is a 2xx:
 * - when it names something the sequence deleted, it is sent again (a deletion may take a
 *   request or two) and must turn 4xx within a few: a deleted object that stays readable fails;
 * - when every id in its path is one the sequence made and has not deleted, the client sent it
 *   without valid credentials: it is sent again with the token the sequence deleted last (or one
 *   the server never issued) and must be a 4xx;
 * - otherwise (an id nobody made, answered 2xx) it fails.
 * An accepted request that names something the sequence deleted may answer 404: the recording's
 * server was slower to finish the deletion.
 *
 * Then every 2xx answer, tallied by operation over the recorded clients and our own sequence
 * (test/clients/own/: the operations the live recordings hold that no client sent), is checked
 * against the shapes of the live service's answers (test/clients/live/, live-shapes.ts says how):
 * every key it sends, with a type it sends, except where the service description says otherwise
 * (live-exceptions.ts, one place, each with the description's words).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DIALECTS, type Dialect } from '../helpers/app.ts';
import { type OperatorApp, operatorApp } from '../operator/helpers.ts';
import { LIVE_EXCEPTIONS } from './live-exceptions.ts';
import { liveDifferences, ShapeTally } from './live-shapes.ts';
import { OWN_DIR, readRecordings } from './recordings.ts';
import { Replay } from './replay.ts';

async function replayServer(t: Parameters<typeof operatorApp>[0], dialect: Dialect): Promise<OperatorApp> {
  const app = await operatorApp(t, dialect, { seed: 1, timeScale: 1 });
  const instant = await app.admin('PUT', '/admin/transitions', { body: { seconds: 0 } });
  assert.equal(instant.status, 200, JSON.stringify(instant.body));
  return app;
}

const recordings = readRecordings();
/** Our own sequence, in the same form: the operations the live recordings answered that no recorded client sent. */
const own = readRecordings(OWN_DIR);

test('there are recorded clients to replay', () => {
  assert.ok(recordings.size > 0, 'test/clients/recorded/ holds no *.jsonl with requests');
});

for (const dialect of DIALECTS) {
  describe(`recorded clients replayed [${dialect}]`, () => {
    // Every accepted answer, by operation, for the check against the live service's (the last test).
    const tallies = new Map<string, ShapeTally>();
    const tally = (operation: string, body: unknown) => {
      const found = tallies.get(operation) ?? new ShapeTally();
      found.add(body);
      tallies.set(operation, found);
    };
    for (const [client, lines] of [...recordings, ...own]) {
      test(`${client}: ${lines.length} requests as recorded`, async (t) => {
        const result = await new Replay(await replayServer(t, dialect), tally).run(lines);
        for (const warning of result.warnings) t.diagnostic(`warning: ${warning}`);
        for (const gone of result.gone) t.diagnostic(`gone already (deleted earlier): ${gone}`);
        const guesses = result.guesses.length ? `\nids guessed:\n${result.guesses.join('\n')}` : '';
        assert.ok(
          result.failures.length === 0,
          `${result.failures.length} of ${lines.length} requests went otherwise than recorded:\n${result.failures.join('\n')}${guesses}`,
        );
      });
    }

    test('every answer has the keys the live service sends, with its types (test/clients/live/)', () => {
      const { differences, unexercised, stale } = liveDifferences(tallies, LIVE_EXCEPTIONS);
      assert.deepEqual(unexercised, [], 'operations the live service answered that no sequence here asks');
      assert.ok(differences.length === 0, `${differences.length} differences from the live answers:\n${differences.join('\n')}`);
      assert.deepEqual(stale, [], 'exceptions (test/clients/live-exceptions.ts) that match no difference any more');
    });
  });
}
