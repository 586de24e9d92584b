import { causeOf, down, type ProbeResult } from './probe-outcome.ts';

/**
 * Runs a whole probe (name lookup, connect, TLS, request, body read) under one deadline of
 * `timeoutSec` wall-clock seconds. At the deadline the probe's signal aborts what it still waits on,
 * and the result is `timeout` whatever the probe does with the signal, so a probe never holds a
 * worker slot longer than its timeout. Never throws: a failure is a result with its cause.
 */
export async function withinDeadline(
  timeoutSec: number,
  probe: (signal: AbortSignal) => Promise<ProbeResult>,
): Promise<ProbeResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => {
      resolve(down('timeout'));
      controller.abort();
    }, timeoutSec * 1000);
  });
  try {
    return await Promise.race([probe(controller.signal), deadline]);
  } catch (err) {
    return down(causeOf(err));
  } finally {
    clearTimeout(timer);
    // Whatever the probe left open (a body not read to its end, a connection still opening) ends here.
    controller.abort();
  }
}
