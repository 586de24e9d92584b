import type { FastifyRequest } from 'fastify';

/**
 * Some ids hold a slash (`node/debian12`, `private/12`, `node/latest-64bit`). Their routes are
 * registered as `<collection>/*`, which matches both the raw form and the %2F-encoded one; this
 * preValidation hook renames the wildcard to the reference's parameter name, so the params schema,
 * the handler and the API document all say `imageId` (or `kernelId`).
 */
export function slashIdParam(name: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const raw = (request.params as Record<string, string | undefined>)['*'] ?? '';
    request.params = { [name]: raw.replace(/\/+$/, '') };
  };
}
