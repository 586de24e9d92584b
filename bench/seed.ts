import fs from 'node:fs';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { openAccount } from '../src/domain/account/account.service.ts';
import type { Principal } from '../src/domain/account/principal.ts';
import { operatorIn } from '../src/domain/account/principal.ts';
import type { CreateNode } from '../src/domain/nodes/node.schema.ts';
import { createNode } from '../src/domain/nodes/node-create.service.ts';
import { parseScopes } from '../src/domain/profile/scopes.ts';
import { createToken } from '../src/domain/profile/token.service.ts';
import { startRuntime } from '../src/runtime.ts';
import { SEED_REGIONS, type SeedAccount, type SeedResult, seedNodeBody } from './shape.ts';

/**
 * Seeds a benchmark database in a process of its own, through the domain services: accounts (the
 * operator's `account create`), a token per account (`token create`) and nodes (the node creation
 * service). Runs with the 'tool' runtime role: no HTTP, no worker.
 *
 * Env: BENCH_NODES (total, default 100000), BENCH_ACCOUNTS (default 100), BENCH_SEED_OUT (a JSON file
 * for the result), BENCH_SEED_PATH (`service`: one createNode call a node; the default).
 */

const nodes = Number(process.env.BENCH_NODES ?? 100_000);
const accounts = Number(process.env.BENCH_ACCOUNTS ?? 100);
const out = process.env.BENCH_SEED_OUT;
const perAccount = Math.ceil(nodes / accounts);

const config = loadConfig();
const runtime = await startRuntime(config, { role: 'tool', logger: pino({ level: config.logLevel }, pino.destination(2)) });
const { ctx } = runtime;
const started = performance.now();
const result: SeedResult = { accounts: [], nodes: 0, seconds: 0, path: 'service' };
try {
  for (let a = 0; a < accounts; a += 1) {
    const username = `bench${a}`;
    const { accountId } = await openAccount(ctx, { email: `${username}@example.com`, username });
    const user = await ctx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
    const token = await createToken(ctx, operatorIn(accountId), { accountId, userId: user.id }, '*', { label: 'bench' });
    const principal: Principal = {
      accountId,
      userId: user.id,
      username,
      restricted: false,
      scopes: parseScopes('*').set,
      tokenId: token.id,
    };
    const count = Math.min(perAccount, nodes - a * perAccount);
    const ids: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const body: CreateNode = seedNodeBody(a, i);
      const node = await createNode(ctx, principal, body);
      ids.push(node.id);
    }
    result.nodes += ids.length;
    const seed: SeedAccount = { accountId, username, token: token.token, nodeIds: a < 2 ? ids : [] };
    result.accounts.push(seed);
    if ((a + 1) % 10 === 0 || a === accounts - 1) {
      const s = (performance.now() - started) / 1000;
      process.stderr.write(`seed: ${a + 1}/${accounts} accounts, ${result.nodes} nodes, ${s.toFixed(1)} s\n`);
    }
  }
  result.seconds = (performance.now() - started) / 1000;
  result.regions = SEED_REGIONS;
  const text = JSON.stringify(result);
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(`${text}\n`);
} finally {
  await runtime.close();
}
