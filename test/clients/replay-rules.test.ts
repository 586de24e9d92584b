import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, type Reply, type RequestOptions } from '../helpers/app.ts';
import type { RecordedLine, RecordedRequest } from './recordings.ts';
import { Replay } from './replay.ts';

/** Recorded lines for a test: each names what it needs, the rest is filled in. */
function recorded(...requests: (Partial<RecordedRequest> & Pick<RecordedRequest, 'method' | 'path'>)[]): RecordedLine[] {
  return requests.map((r, i) => ({
    file: 'test.jsonl',
    line: i + 1,
    request: { client: 'test-client', operation: null, body: null, outcome: 'accepted', ...r },
  }));
}

interface Sent {
  method: string;
  url: string;
  token: string | null | undefined;
  headers: Record<string, string>;
  /** The body as sent: text, or undefined for none. */
  text: string | undefined;
  /** The body parsed, when it is JSON. */
  body: unknown;
}

function parsed(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A stand-in server: `answer` decides each reply; what was sent is kept. */
function standIn(answer: (sent: Sent) => { status: number; body?: unknown }) {
  const sent: Sent[] = [];
  return {
    sent,
    async request(method: string, url: string, options: RequestOptions = {}): Promise<Reply> {
      const text = typeof options.body === 'string' ? options.body : undefined;
      const one = { method, url, token: options.token, headers: options.headers ?? {}, text, body: parsed(text) };
      sent.push(one);
      const { status, body = {} } = answer(one);
      return { status, headers: {}, body };
    },
  };
}

const notFound = { status: 404, body: { errors: [{ reason: 'Not found' }] } };
const invalidToken = { status: 401, body: { errors: [{ reason: 'Invalid Token' }] } };

describe('replaying recorded clients: the rules (a stand-in server, no database)', () => {
  test('a refused GET of something deleted may take a few requests to turn 4xx; one that stays readable fails', async () => {
    const lines = recorded(
      { method: 'POST', path: '/v4/domains', operation: 'POST /domains', answer: { id: 1 } },
      { method: 'DELETE', path: '/v4/domains/1', operation: 'DELETE /domains/{domainId}' },
      { method: 'GET', path: '/v4/domains/1/records', operation: 'GET /domains/{domainId}/records', outcome: 'refused' },
    );
    let reads = 0;
    const slow = standIn(({ method }) => (method === 'GET' && ++reads > 2 ? notFound : { status: 200, body: { id: 1 } }));
    assert.deepEqual((await new Replay(slow).run(lines)).failures, []);
    assert.equal(slow.sent.length, 5, 'the GET went three times');

    const never = standIn(() => ({ status: 200, body: { id: 1 } }));
    const result = await new Replay(never).run(lines);
    assert.equal(result.failures.length, 1, result.failures.join('\n'));
    assert.match(result.failures[0] ?? '', /^test-client test\.jsonl:3 GET \/v4\/domains\/1\/records: deleted earlier/);
    assert.ok(
      never.sent.slice(2).every((s) => s.token === ADMIN_TOKEN),
      'it was never tried with other credentials',
    );
  });

  test('a refused GET of what exists is sent again with the deleted token, and must then be refused', async () => {
    const answers = (accepting: boolean) =>
      standIn(({ method, url, token }) => {
        if (method === 'POST' && url === '/v4/profile/tokens')
          return { status: 200, body: { id: 3, token: 'narrow', scopes: 'nodes:read_only' } };
        if (token === ADMIN_TOKEN || accepting) return { status: 200 };
        return invalidToken;
      });
    const lines = recorded(
      { method: 'POST', path: '/v4/profile/tokens', operation: 'POST /profile/tokens', answer: { id: 7 } },
      { method: 'DELETE', path: '/v4/profile/tokens/7', operation: 'DELETE /profile/tokens/{tokenId}' },
      { method: 'GET', path: '/v4/profile', operation: 'GET /profile', outcome: 'refused' },
    );
    const strict = answers(false);
    assert.deepEqual((await new Replay(strict).run(lines)).failures, []);
    assert.deepEqual(
      strict.sent.map((s) => `${s.method} ${s.url} ${s.token === ADMIN_TOKEN ? 'full' : s.token}`),
      ['POST /v4/profile/tokens full', 'DELETE /v4/profile/tokens/3 full', 'GET /v4/profile full', 'GET /v4/profile narrow'],
    );
    const lax = await new Replay(answers(true)).run(lines);
    assert.match(lax.failures.join('\n'), /:3 GET \/v4\/profile: answers 2xx with the full token and 200 .* with a deleted one/);
  });

  test('a refused GET naming an id the sequence never made fails when it answers 2xx', async () => {
    const result = await new Replay(standIn(() => ({ status: 200 }))).run(
      recorded({
        method: 'GET',
        path: '/v4/node/instances/987654321',
        operation: 'GET /node/instances/{nodeId}',
        outcome: 'refused',
      }),
    );
    assert.match(result.failures.join('\n'), /:1 GET \/v4\/node\/instances\/987654321: names an id this sequence never made/);
  });

  test('a refused write goes with the live narrow token; each failure names its line, request, status and reason', async () => {
    const server = standIn(({ method, url, token }) => {
      if (url === '/v4/profile/tokens') return { status: 200, body: { id: 2, token: 'narrow', scopes: 'nodes:read_only' } };
      if (method === 'POST' && token === 'narrow') return { status: 403, body: { errors: [{ reason: 'lacks the scope' }] } };
      if (url === '/v4/tags') return { status: 400, body: { errors: [{ field: 'label', reason: 'label is required' }] } };
      return { status: 500, body: { errors: [{ reason: 'boom' }] } };
    });
    const result = await new Replay(server).run(
      recorded(
        { method: 'POST', path: '/v4/profile/tokens', operation: 'POST /profile/tokens', answer: { id: 2 } },
        { method: 'POST', path: '/v4/node/instances', operation: 'POST /node/instances', outcome: 'refused', body: {} },
        { method: 'POST', path: '/v4/tags', operation: 'POST /tags', body: { label: 'x' } },
        { method: 'GET', path: '/v4/regions', operation: 'GET /regions' },
      ),
    );
    assert.deepEqual(result.failures, [
      'test-client test.jsonl:3 POST /v4/tags: expected 2xx, got 400 label: label is required',
      'test-client test.jsonl:4 GET /v4/regions: a server error: 500 boom',
    ]);
    assert.equal(server.sent[1]?.token, 'narrow');
  });

  test('the recorded Content-Type and X-Filter go as they are; a null body is none, a $raw one is sent as its text', async () => {
    const server = standIn(() => ({ status: 200 }));
    const result = await new Replay(server).run(
      recorded(
        { method: 'POST', path: '/v4/node/instances/1/boot', content_type: 'application/json', body: null },
        {
          method: 'POST',
          path: '/v4/node/instances/1/shutdown',
          content_type: 'application/x-www-form-urlencoded',
          body: { $raw: 'a=b' },
        },
        { method: 'GET', path: '/v4/domains', query: '?page=2', x_filter: '{"domain": "x.example"}', body: {} },
      ),
    );
    assert.deepEqual(result.failures, []);
    assert.deepEqual(
      server.sent.map((s) => [s.url, s.headers, s.text]),
      [
        ['/v4/node/instances/1/boot', { 'content-type': 'application/json' }, undefined],
        ['/v4/node/instances/1/shutdown', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b'],
        ['/v4/domains?page=2', { 'x-filter': '{"domain": "x.example"}' }, '{}'],
      ],
    );
  });

  test('ids map onto the answers of this server, in paths and bodies; ids only a list showed are taken from our list', async () => {
    const server = standIn(({ method, url }) => {
      if (method === 'POST' && url === '/v4/node/instances') return { status: 200, body: { id: 5 } };
      if (url === '/v4/images/upload') return { status: 200, body: { image: { id: 'private/9' } } };
      if (url === '/v4/node/instances/5/disks') return { status: 200, body: { data: [{ id: 10 }, { id: 11 }] } };
      return { status: 200 };
    });
    const result = await new Replay(server).run(
      recorded(
        { method: 'POST', path: '/v4/node/instances', operation: 'POST /node/instances', answer: { id: 41 } },
        { method: 'POST', path: '/v4/images/upload', operation: 'POST /images/upload', answer: { image_id: 'private/16' } },
        { method: 'GET', path: '/v4/node/instances/41/disks', operation: 'GET /node/instances/{nodeId}/disks' },
        {
          method: 'POST',
          path: '/v4/node/instances/41/clone',
          operation: 'POST /node/instances/{nodeId}/clone',
          body: { node_id: 41, disks: [1, 2], devices: { sda: { disk_id: 2 } } },
        },
        { method: 'POST', path: '/v4/networking/firewalls/3/devices', operation: null, body: { type: 'node', id: 41 } },
        {
          method: 'PUT',
          path: '/v4/account/users/someone/grants',
          operation: 'PUT /account/users/{username}/grants',
          body: { node: [{ id: 41, permissions: 'read_only' }], image: [{ id: 16, permissions: null }] },
        },
        { method: 'GET', path: '/v4/images/private/16', operation: 'GET /images/{imageId}', x_filter: '{"node_id": 41}' },
      ),
    );
    assert.deepEqual(result.failures, []);
    assert.deepEqual(
      server.sent.slice(3).map((s) => `${s.url} ${JSON.stringify(s.body)}`),
      [
        '/v4/node/instances/5/clone {"node_id":5,"disks":[10,11],"devices":{"sda":{"disk_id":11}}}',
        '/v4/networking/firewalls/3/devices {"type":"node","id":5}',
        '/v4/account/users/someone/grants {"node":[{"id":5,"permissions":"read_only"}],"image":[{"id":9,"permissions":null}]}',
        '/v4/images/private/9 undefined',
      ],
    );
    assert.deepEqual(result.guesses, [
      'line 4: diskId 1 guessed as 10 (the first value this server listed that nothing maps onto)',
      'line 4: diskId 2 guessed as 11 (the first value this server listed that nothing maps onto)',
      'line 5: firewallId 3 guessed as 3 (no list of them read)',
    ]);
  });
});

for (const dialect of DIALECTS) {
  describe(`replaying recorded clients against the server [${dialect}]`, () => {
    test('ids the recording answered differently are replaced by ours, and what was deleted is refused', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const first = await app.request('POST', '/v4/domains', {
        body: { domain: 'before.example.com', type: 'master', soa_email: 'a@example.com' },
      });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const result = await new Replay(app).run(
        recorded(
          {
            method: 'POST',
            path: '/v4/domains',
            operation: 'POST /domains',
            content_type: 'application/json',
            body: { domain: 'replayed.example.com', type: 'master', soa_email: 'a@example.com' },
            answer: { id: 40 },
          },
          {
            method: 'POST',
            path: '/v4/domains/40/records',
            operation: 'POST /domains/{domainId}/records',
            content_type: 'application/json',
            body: { type: 'A', name: 'www', target: '192.0.2.10' },
            answer: { id: 70 },
          },
          { method: 'GET', path: '/v4/domains/40/records/70', operation: 'GET /domains/{domainId}/records/{recordId}' },
          { method: 'DELETE', path: '/v4/domains/40', operation: 'DELETE /domains/{domainId}' },
          {
            method: 'GET',
            path: '/v4/domains/40/records/70',
            operation: 'GET /domains/{domainId}/records/{recordId}',
            outcome: 'refused',
          },
          { method: 'GET', path: `/v4/domains/${first.body.id}`, operation: 'GET /domains/{domainId}', outcome: 'refused' },
        ),
      );
      // The last line names the domain made before the replay, which the sequence never made: it stays readable.
      assert.equal(result.failures.length, 1, result.failures.join('\n'));
      assert.match(result.failures[0] ?? '', /:6 GET \/v4\/domains\/\d+: names an id this sequence never made, yet answers 200/);
      assert.equal((await app.request('GET', '/v4/domains')).body.results, 1, 'the replayed domain was made and deleted');
    });
  });
}
