import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ClockAdvanceBody,
  ClockAdvanced,
  ClockSchema,
  JobParams,
  ReleasedSchema,
  TransitionBody,
  TransitionList,
  TransitionParams,
} from './admin.schema.ts';
import { advanceClock, clockView } from './clock.service.ts';
import { advanceJob, advanceTransition, listTransitions, setTransition, transitionChange } from './transitions.service.ts';

/** Time: transition durations, manual transitions and their advance, the service clock. */
export const controlRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/transitions',
    {
      schema: {
        operationId: 'getTransitions',
        summary: 'Every transition kind with its setting and held jobs',
        response: { 200: TransitionList },
      },
    },
    async () => ({ data: await listTransitions(ctx) }),
  );
  app.put(
    '/transitions',
    {
      schema: {
        operationId: 'setAllTransitions',
        summary: 'Set every transition kind at once',
        body: TransitionBody,
        response: { 200: TransitionList },
      },
    },
    async (request) => ({ data: await setTransition(ctx, 'all', transitionChange(request.body)) }),
  );
  app.put(
    '/transitions/:kind',
    {
      schema: {
        operationId: 'setTransition',
        summary: 'Set how long a transition takes ({"seconds": n}), or make it manual ({"mode": "manual"}) or default again',
        params: TransitionParams,
        body: TransitionBody,
        response: { 200: TransitionList },
      },
    },
    async (request) => ({ data: await setTransition(ctx, request.params.kind, transitionChange(request.body)) }),
  );
  app.post(
    '/transitions/:kind/advance',
    {
      schema: {
        operationId: 'advanceTransition',
        summary: 'Finish every operation held by a manual transition of this kind',
        params: TransitionParams,
        response: { 200: ReleasedSchema },
      },
    },
    async (request) => advanceTransition(ctx, request.params.kind),
  );
  app.post(
    '/jobs/:jobId/advance',
    {
      schema: {
        operationId: 'advanceJob',
        summary: 'Run one held or waiting job now',
        params: JobParams,
        response: { 200: ReleasedSchema },
      },
    },
    async (request) => advanceJob(ctx, request.params.jobId),
  );
  app.get(
    '/clock',
    { schema: { operationId: 'getClock', summary: 'The service clock', response: { 200: ClockSchema } } },
    async () => {
      await ctx.operator.reload();
      return clockView(ctx);
    },
  );
  app.post(
    '/clock/advance',
    {
      schema: {
        operationId: 'advanceClock',
        summary: 'Move the service clock forward and run what became due',
        body: ClockAdvanceBody,
        response: { 200: ClockAdvanced },
      },
    },
    async (request) => advanceClock(ctx, request.body.seconds),
  );
};
