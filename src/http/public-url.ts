import type { FastifyRequest } from 'fastify';

/** The address clients reach this server at: the configured public URL (CUMULO_PUBLIC_URL), else the request's own. */
export function publicBaseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
