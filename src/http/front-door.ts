import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import { ApiError } from '../errors.ts';
import { answerError } from './error-handler.ts';

/**
 * One thing done to every request before its handler: it returns nothing when it is done, or a
 * promise when it must wait (a database read); it may answer the request itself (`reply.send`), and
 * then the steps after it and the handler do not run; it refuses by returning or throwing an ApiError.
 */
export type DoorStep = (request: FastifyRequest, reply: FastifyReply) => void | ApiError | Promise<void>;

/**
 * The steps every request passes, in order, as one onRequest hook: a request whose steps have nothing
 * to wait for (a known token, no operator setting to read) passes them without a promise or a turn of
 * the microtask queue, which Fastify's own hooks cost one each.
 */
export function frontDoor(steps: readonly DoorStep[]): onRequestHookHandler {
  return (request, reply, done) => {
    // Answered here, as the error handler would answer it, without Fastify's error path.
    const refuse = (error: unknown) => answerError(request, reply, error as Error);
    const from = (first: number): void => {
      for (let i = first; i < steps.length; i++) {
        if (reply.sent) return;
        let waiting: void | ApiError | Promise<void>;
        try {
          waiting = (steps[i] as DoorStep)(request, reply);
        } catch (error) {
          refuse(error);
          return;
        }
        if (waiting instanceof ApiError) {
          refuse(waiting);
          return;
        }
        if (waiting) {
          waiting.then(() => from(i + 1), refuse);
          return;
        }
      }
      if (!reply.sent) done();
    };
    from(0);
  };
}

/** A hook with nothing to wait for, as Fastify runs one without a promise: it refuses by throwing. */
export function withoutWaiting(check: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    try {
      check(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
