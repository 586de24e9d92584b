import { Writable } from 'node:stream';
import { type Level, pino } from 'pino';

/** A logger writing into memory, and the lines it wrote. */
export function capturedLog(level: Level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
