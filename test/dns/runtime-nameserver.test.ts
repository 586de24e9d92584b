import assert from 'node:assert/strict';
import net from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { parseHostPort } from '../../src/dns/host-port.ts';
import { type RuntimeOptions, startRuntime } from '../../src/runtime.ts';
import { DIALECTS, type Dialect, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { needs } from '../helpers/system-tools.ts';
import { dig, exampleZone, memorySource } from './helpers.ts';

/** A runtime with CUMULO_DNS_LISTEN on a free port of 127.0.0.1; its log lines are collected. */
async function start(t: TestContext, dialect: Dialect, options: Partial<RuntimeOptions>) {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  const pgSchema = dialect === 'postgres' ? await freshPgSchema(t) : undefined;
  const config = loadConfig(
    { CUMULO_DNS_LISTEN: '127.0.0.1:0' },
    { dataDir: tempDir(t), inProcessWorker: false, ...(pgSchema ? { databaseUrl: PG_URL } : {}) },
  );
  const runtime = await startRuntime(config, { role: 'serve', logger, ...(pgSchema ? { pgSchema } : {}), ...options });
  return { runtime, lines };
}

for (const dialect of DIALECTS) {
  describe(`the nameserver in the runtime [${dialect}]`, () => {
    test(
      'serve starts it on CUMULO_DNS_LISTEN with the zone source it is given, and closes it with the runtime',
      needs('dig'),
      async (t) => {
        const { runtime, lines } = await start(t, dialect, { zoneSource: () => memorySource([exampleZone()]) });
        let port = 0;
        try {
          const address = runtime.nameserver?.address ?? assert.fail('no nameserver');
          port = parseHostPort(address, 53)?.port ?? 0;
          assert.ok(port > 0, address);
          assert.ok(
            lines.some((l) => l.includes(address) && l.includes('nameserver')),
            'the log names the address',
          );
          const res = await dig(port, 'www.example.com', 'A');
          assert.deepEqual([res.status, res.answer.map((r) => r.data)], ['NOERROR', ['192.0.2.1']]);
        } finally {
          await runtime.close();
        }
        const conn = net.connect({ host: '127.0.0.1', port });
        const error = await new Promise<NodeJS.ErrnoException>((resolve) => conn.on('error', resolve));
        assert.equal(error.code, 'ECONNREFUSED', 'closed with the runtime');
      },
    );
  });
}
