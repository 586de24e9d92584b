import { type Static, type TSchema, Type } from 'typebox';

/** OpenAPI 3.0 nullability (`nullable: true`), which ajv and the serializer both understand. */
export function Nullable<T extends TSchema>(schema: T) {
  const plain = schema as { enum?: unknown[] };
  // An enum lists every allowed value, so null must be one of them for the validator to accept it.
  const withNull = plain.enum ? { ...schema, enum: [...plain.enum, null] } : { ...schema };
  return Type.Unsafe<Static<T> | null>({ ...withNull, nullable: true });
}

/** A string limited to the given values, written as a JSON Schema `enum` like the reference does. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The reference's date-time strings: UTC, second precision. */
export const Timestamp = Type.String({ format: 'date-time' });

export const ErrorEnvelope = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        field: Type.Optional(Type.String()),
        reason: Type.String(),
      }),
    ),
  },
  { $id: 'ErrorEnvelope' },
);

/** What action endpoints return on success. */
export const Empty = Type.Object({});

/** The largest value an integer column holds (PostgreSQL `integer`): ids, page numbers and sizes stay within it. */
export const INT32_MAX = 2147483647;

/** Where a page-size schema keeps the most rows a page is served (`pageRequest` reads it off the route). */
export const SERVED_AT_MOST = 'x-served-at-most';

function pageQuery(largest: number, servedAtMost = largest) {
  return Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, default: 1 })),
    page_size: Type.Optional(
      Type.Integer({
        minimum: 25,
        maximum: largest,
        default: 100,
        ...(servedAtMost < largest
          ? {
              [SERVED_AT_MOST]: servedAtMost,
              description: `A page holds at most ${servedAtMost}; a larger size is served ${servedAtMost}`,
            }
          : {}),
      }),
    ),
  });
}

/** `page` and `page_size` where the description sets no bounds: up to 500 a page, as the live service takes. */
export const PageQuery = pageQuery(500);
/**
 * The collections whose pages the description bounds to 25..100: firewalls (a node's too), firewall
 * devices, IPv6 pools, IPv6 ranges, VLANs, tags and tagged objects. A page never holds more than 100,
 * but a larger size is taken and served 100, as the live service does: clients ask every collection
 * for 500 a page and follow `pages`.
 */
export const LimitedPageQuery = pageQuery(500, 100);
export type PageQueryT = Static<typeof PageQuery>;

/** The collection envelope around a record schema. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    page: Type.Integer(),
    pages: Type.Integer(),
    results: Type.Integer(),
  });
}

export const IntegerId = Type.Integer({ minimum: 0, maximum: INT32_MAX });
