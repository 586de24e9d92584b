import fs from 'node:fs';
import Fastify from 'fastify';
import { type Node, NodeSchema } from '../src/domain/nodes/node.schema.ts';
import { Paginated } from '../src/http/schemas.ts';

/**
 * The reference point of the benchmark: a bare Fastify process with the two read routes the
 * benchmark calls, answering fixed objects (a real node and a real page of the seeded database, read
 * from BENCH_FIXTURE) through the same response schemas, so serialization costs the same. No
 * database, no validation beyond JSON parsing; its only check is that a request has an
 * Authorization header, else a 401 in the error envelope. Listens on 127.0.0.1:PORT.
 */

interface Fixture {
  node: Node;
  page: { data: Node[]; page: number; pages: number; results: number };
}

const fixtureFile = process.env.BENCH_FIXTURE;
if (!fixtureFile) throw new Error('BENCH_FIXTURE must name the fixture file');
const fixture = JSON.parse(fs.readFileSync(fixtureFile, 'utf8')) as Fixture;

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.addHook('onRequest', async (request, reply) => {
  if (request.url.startsWith('/v4/') && !request.headers.authorization) {
    return reply.code(401).send({ errors: [{ reason: 'Invalid Token' }] });
  }
});
/**
 * CPU-bound work added to each view, in µs (BENCH_BARE_WORK_US, default none): how the rate of a
 * server falls with work of its own on top of this route's (docs/benchmark.md, "Where each microsecond goes").
 */
const workMs = Number(process.env.BENCH_BARE_WORK_US ?? 0) / 1000;
function work(): void {
  const end = performance.now() + workMs;
  while (performance.now() < end);
}

app.get('/v4/node/instances/:nodeId', { schema: { response: { 200: NodeSchema } } }, async () => {
  if (workMs > 0) work();
  return fixture.node;
});
app.get('/v4/node/instances', { schema: { response: { 200: Paginated(NodeSchema) } } }, async () => fixture.page);

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write('bare server ready\n');
process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
