import type { Scalar } from './id-map.ts';

/**
 * Where a request body holds ids, by the API's naming, so that no field needs a rule of its own:
 * - `<thing>_id` holds a `<thing>Id` (`node_id`, `disk_id` in `devices.sda`, `config_id`, `stackscript_id`);
 * - a list of values under `<thing>s` holds `<thing>Id`s (`nodes`, `disks`, `configs`, `credentials`, `images`);
 * - an object's `id` beside `type: "<thing>"`, or in a list under `<thing>` (grants: `node: [{id}]`), is a `<thing>Id`;
 * - a value under `<thing>` (`image`) is a `<thing>Id` when it is a recorded one the map knows (never guessed).
 * `map(kind, value, guess)` answers ours; `guess` is false where only a known value may replace it.
 */
export type MapValue = (kind: string, value: Scalar, guess: boolean) => Scalar;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isScalar(v: Json): v is Scalar {
  return typeof v === 'string' || typeof v === 'number';
}

function isObject(v: Json): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function camel(snake: string): string {
  return snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function mapObject(object: { [key: string]: Json }, map: MapValue): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  const type = object.type;
  for (const [key, value] of Object.entries(object)) {
    const idOf = /^(.+)_id$/.exec(key)?.[1];
    if (key === 'id' && typeof type === 'string' && isScalar(value)) out[key] = map(`${type}Id`, value, true);
    else if (idOf !== undefined && isScalar(value)) out[key] = map(`${camel(idOf)}Id`, value, true);
    else if (Array.isArray(value) && value.every(isScalar) && key.endsWith('s')) {
      out[key] = value.map((v) => map(`${camel(key.slice(0, -1))}Id`, v, true));
    } else if (Array.isArray(value) && value.every(isObject)) {
      out[key] = value.map((item) => {
        const mapped = mapObject(item, map);
        if (isScalar(item.id ?? null) && item.type === undefined) mapped.id = map(`${camel(key)}Id`, item.id as Scalar, true);
        return mapped;
      });
    } else if (isScalar(value) && key !== 'id') out[key] = map(`${camel(key)}Id`, value, false);
    else out[key] = mapBodyIds(value, map);
  }
  return out;
}

/** `body` with the recorded ids in it replaced by ours. */
export function mapBodyIds(body: Json, map: MapValue): Json {
  if (Array.isArray(body)) return body.map((v) => mapBodyIds(v, map));
  return isObject(body) ? mapObject(body, map) : body;
}

export type { Json };
