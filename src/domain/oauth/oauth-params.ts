/** A request's parameters as parsed: a text each, or a list of them when a name is given twice. */
export type Form = Record<string, unknown>;

/** RFC 6749 3.1: no parameter may be sent twice. */
export function repeatedParameter(...sources: Form[]): string | undefined {
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) if (Array.isArray(value)) return key;
  }
  return undefined;
}

export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
