import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { publicAccess } from '../../http/access.ts';
import { pageRequest } from '../../http/list.ts';
import { PageQuery, Paginated } from '../../http/schemas.ts';
import { slashIdParam } from '../../http/slash-id.ts';
import { KernelParams, KernelSchema } from './kernel.schema.ts';
import { getKernel, getKernels } from './kernel.service.ts';

const tags = ['Node Instances'];

export const kernelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/node/kernels',
    {
      schema: {
        operationId: 'getKernels',
        tags,
        summary: 'List kernels',
        querystring: PageQuery,
        response: { 200: Paginated(KernelSchema) },
      },
      config: { access: publicAccess },
    },
    async (request) => getKernels(app.ctx, pageRequest(request)),
  );
  app.get(
    '/node/kernels/*',
    {
      preValidation: slashIdParam('kernelId'),
      schema: {
        operationId: 'getKernel',
        tags,
        summary: 'View a kernel',
        params: KernelParams,
        response: { 200: KernelSchema },
      },
      config: { access: publicAccess, openapiPath: '/node/kernels/{kernelId}' },
    },
    async (request) => getKernel(app.ctx, request.params.kernelId),
  );
};
