import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const build = SerializerSelector();
/** Built serializers by the text of the shared schemas, the route's response schema and its status. */
const built = new Map<string, Serializer>();

/**
 * Fastify's own response serializers (fast-json-stringify), built once per schema in a process: what
 * one makes depends only on the schema's text, the shared schemas and the options, so an app built
 * again in the same process (every test builds one) reuses them instead of building every route's anew.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = build(externalSchemas, options);
  const context = JSON.stringify([externalSchemas, options]);
  return (route) => {
    const key = `${context}|${route.httpStatus}|${JSON.stringify(route.schema)}`;
    let serializer = built.get(key);
    if (serializer) return serializer;
    // Built when first used: a process builds the serializers of the routes it answers, not all at start.
    let make: Serializer | undefined;
    serializer = (data) => {
      make ??= compile(route);
      return make(data);
    };
    built.set(key, serializer);
    return serializer;
  };
};
