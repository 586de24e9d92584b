import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { DoorStep } from '../http/front-door.ts';
import { API_PREFIX } from '../http/openapi.ts';
import { randomFraction } from '../random.ts';
import { faultMatches } from './request-faults.ts';

/** Requests that are not API calls: they neither move a seeded clock nor meet injected faults. */
const NOT_API = /^\/(?:admin(?:\/|$)|healthz$|readyz$|metrics$|docs(?:\/|$)|v4\/openapi\.json$)/;

/**
 * Runs before authentication on every request. API calls (v4 and data URLs) see the operator's
 * current settings; with a seed each moves the logical clock one step, runs the jobs that became due
 * and starts the random stream at a key of its own, so what it sees and generates depends on the
 * request sequence alone. Then v4 calls meet the injected request fault, if it matches. Without a
 * seed, settings read lately and no fault, there is nothing to wait for.
 */
export function operatorStep(ctx: Context): DoorStep {
  const step = ctx.config.clockStepMs;
  const seeded = async () => {
    const offset = await ctx.operator.addClockOffset(step);
    await ctx.runDueJobs();
    ctx.random.reposition(`request:${offset}`);
  };
  return (request) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (NOT_API.test(path)) return;
    // The fault as the settings stand once read.
    const meetFault = () =>
      ctx.operator.requestFault && path.startsWith(`${API_PREFIX}/`) ? injectFault(ctx, request.method, path) : undefined;
    const settled = ctx.config.seed !== undefined ? seeded() : ctx.operator.fresh();
    return settled ? settled.then(meetFault) : meetFault();
  };
}

async function injectFault(ctx: Context, method: string, path: string): Promise<void> {
  const fault = ctx.operator.requestFault;
  if (!fault || !faultMatches(fault.matcher, method, path.slice(API_PREFIX.length))) return;
  if (fault.latency_ms > 0) await sleep(fault.latency_ms);
  if (fault.error_rate > 0 && randomFraction(ctx.random) < fault.error_rate) {
    throw new ApiError(fault.status === 500 ? 'internal' : 'unavailable', [
      {
        reason: `Injected fault: the operator made ${fault.error_rate * 100}% of "${fault.match}" requests fail (PUT /admin/faults)`,
      },
    ]);
  }
}
