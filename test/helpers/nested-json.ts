/** JSON text nesting `depth` objects (`{"a":{"a":{}}}`, the top level counting as one) or arrays (`[[[]]]`). */
export function nestedJson(depth: number, shape: 'object' | 'array'): string {
  if (shape === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
}
