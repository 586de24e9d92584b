import fs from 'node:fs';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { openAccount } from '../src/domain/account/account.service.ts';
import { operatorIn, type Principal } from '../src/domain/account/principal.ts';
import type { NodeRow } from '../src/domain/nodes/node.repository.ts';
import { createNode, createNodes } from '../src/domain/nodes/node-create.service.ts';
import { parseScopes } from '../src/domain/profile/scopes.ts';
import { createToken } from '../src/domain/profile/token.service.ts';
import { startRuntime } from '../src/runtime.ts';
import { SEED_REGIONS, type SeedAccount, type SeedResult, seedNodeBody } from './shape.ts';

/**
 * Seeds a benchmark database in a process of its own, through the domain services: accounts (as
 * `cumulo account create` makes them), a token per account (`cumulo token create`) and nodes (the
 * node creation service). Runs with the 'tool' runtime role: no HTTP, no worker of its own.
 *
 * Env: BENCH_NODES (total, default 100000), BENCH_ACCOUNTS (default 100), BENCH_SEED_OUT (a JSON file
 * for the result; stdout otherwise), BENCH_SEED_PATH (`bulk`, the default: createNodes, BENCH_SEED_BATCH
 * nodes (default 1000) a transaction; `service`: createNode, one transaction a node, as the API does),
 * BENCH_SEED_SETTLE (`1`, the default: then run the provisioning jobs, so the nodes end up running as
 * the worker would leave them; run this process with a tiny CUMULO_TIME_SCALE so they are due at once).
 */

const nodes = Number(process.env.BENCH_NODES ?? 100_000);
const accounts = Number(process.env.BENCH_ACCOUNTS ?? 100);
const batch = Number(process.env.BENCH_SEED_BATCH ?? 1000);
const seedPath = process.env.BENCH_SEED_PATH === 'service' ? 'service' : 'bulk';
const settle = process.env.BENCH_SEED_SETTLE !== '0';
const out = process.env.BENCH_SEED_OUT;
const perAccount = Math.ceil(nodes / accounts);

const config = loadConfig();
const runtime = await startRuntime(config, { role: 'tool', logger: pino({ level: config.logLevel }, pino.destination(2)) });
const { ctx } = runtime;
const started = performance.now();
const seconds = () => (performance.now() - started) / 1000;
const result: SeedResult = { accounts: [], nodes: 0, seconds: 0, settleSeconds: 0, path: seedPath, regions: SEED_REGIONS };

/** An account with its first user and a token, as the operator's commands make them. */
async function seedAccount(a: number): Promise<{ principal: Principal; token: string }> {
  const username = `bench${a}`;
  const { accountId } = await openAccount(ctx, { email: `${username}@example.com`, username });
  const user = await ctx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  const token = await createToken(ctx, operatorIn(accountId), { accountId, userId: user.id }, '*', { label: 'bench' });
  const principal = { accountId, userId: user.id, username, restricted: false, scopes: parseScopes('*').set, tokenId: token.id };
  return { principal, token: token.token };
}

async function seedNodes(principal: Principal, a: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let from = 0; from < count; from += batch) {
    const bodies = Array.from({ length: Math.min(batch, count - from) }, (_, i) => seedNodeBody(a, from + i));
    if (seedPath === 'bulk') {
      const rows: NodeRow[] = await createNodes(ctx, principal, bodies);
      ids.push(...rows.map((r) => r.id));
    } else {
      for (const body of bodies) ids.push((await createNode(ctx, principal, body)).id);
    }
  }
  return ids;
}

try {
  for (let a = 0; a < accounts; a += 1) {
    const { principal, token } = await seedAccount(a);
    const ids = await seedNodes(principal, a, Math.max(0, Math.min(perAccount, nodes - a * perAccount)));
    result.nodes += ids.length;
    const seeded: SeedAccount = {
      accountId: principal.accountId,
      username: principal.username,
      token,
      nodeIds: a < 2 ? ids : [],
    };
    result.accounts.push(seeded);
    if ((a + 1) % 10 === 0 || a === accounts - 1) {
      process.stderr.write(`seed: ${a + 1}/${accounts} accounts, ${result.nodes} nodes, ${seconds().toFixed(1)} s\n`);
    }
  }
  result.seconds = seconds();
  if (settle) {
    let jobs = 0;
    for (let ran = await ctx.runDueJobs(); ran > 0; ran = await ctx.runDueJobs()) jobs += ran;
    result.settleSeconds = seconds() - result.seconds;
    process.stderr.write(`seed: ran ${jobs} provisioning jobs in ${result.settleSeconds.toFixed(1)} s\n`);
  }
  const text = JSON.stringify(result);
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(`${text}\n`);
} finally {
  await runtime.close();
}
