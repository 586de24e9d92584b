import type { RouteOptions } from 'fastify';
import { ErrorEnvelope } from '../http/schemas.ts';

interface RouteSchema {
  operationId?: string;
  summary?: string;
  params?: { properties?: Record<string, unknown> };
  querystring?: { properties?: Record<string, unknown>; required?: string[] };
  body?: unknown;
  response?: Record<string, unknown>;
  produces?: string[];
  consumes?: string[];
}

/** TypeBox schemas carry non-enumerable markers; the document wants plain JSON Schema. */
const plain = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema));

/**
 * The admin API's own OpenAPI 3.1 document (JSON Schema as it is), built from the admin routes'
 * schemas; the v4 document never lists them.
 */
export function adminOpenApi(routes: readonly RouteOptions[], prefix: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const schema = (route.schema ?? {}) as RouteSchema;
    if (!schema.operationId) continue;
    const url = route.url.slice(prefix.length).replace(/:(\w+)/g, '{$1}');
    const parameters = [
      ...Object.entries(schema.params?.properties ?? {}).map(([name, s]) => ({
        name,
        in: 'path',
        required: true,
        schema: plain(s),
      })),
      ...Object.entries(schema.querystring?.properties ?? {}).map(([name, s]) => ({
        name,
        in: 'query',
        required: schema.querystring?.required?.includes(name) ?? false,
        schema: plain(s),
      })),
    ];
    const ok = schema.response?.[200];
    const okType = schema.produces?.[0] ?? 'application/json';
    const bodyType = schema.consumes?.[0] ?? 'application/json';
    const requestBody =
      schema.body !== undefined || schema.consumes
        ? {
            required: true,
            content: { [bodyType]: { schema: schema.body === undefined ? { type: 'string' } : plain(schema.body) } },
          }
        : undefined;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      paths[url] ??= {};
      (paths[url] as Record<string, unknown>)[method.toLowerCase()] = {
        operationId: schema.operationId,
        summary: schema.summary,
        tags: ['Admin'],
        ...(parameters.length ? { parameters } : {}),
        ...(requestBody ? { requestBody } : {}),
        responses: {
          200: { description: 'OK', content: { [okType]: { schema: ok === undefined ? { type: 'string' } : plain(ok) } } },
          default: {
            description: 'Error',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
          },
        },
      };
    }
  }
  const { $id: _id, ...envelope } = plain(ErrorEnvelope) as Record<string, unknown>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cumulo admin API',
      version,
      description:
        "Operator surface, outside /v4: reset, snapshots, transition control, the service clock, faults, address allowances, IPv6 blocks, nodes' firewall rulesets. Send CUMULO_ADMIN_TOKEN as a bearer token.",
    },
    servers: [{ url: prefix }],
    security: [{ adminToken: [] }],
    paths,
    components: {
      schemas: { ErrorEnvelope: envelope },
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer' } },
    },
  };
}
