import { type ErrorItem, fail } from '../../errors.ts';

/**
 * A user-defined field as a script's tag declares it (and as it is kept); the optional keys are
 * there only when the tag sets them. `header` and `required` are kept as written, for the clients
 * that lay out a deployment form by them: a field is required when it has no default.
 */
export interface UserDefinedField {
  label: string;
  name: string;
  example: string;
  oneOf?: string;
  manyOf?: string;
  default?: string;
  header?: string;
  required?: string;
}

type Attribute = 'name' | 'label' | 'example' | 'default' | 'oneOf' | 'manyOf' | 'header' | 'required';

/** Tag attributes, matched without regard to case (scripts in the wild write `Label=` and `oneof=`). */
const ATTRIBUTES: Readonly<Record<string, Attribute>> = {
  name: 'name',
  label: 'label',
  example: 'example',
  default: 'default',
  oneof: 'oneOf',
  manyof: 'manyOf',
  header: 'header',
  required: 'required',
};

/** UDF values reach the script as environment variables, so names must be valid variable names. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ATTRIBUTE_NAME = /[A-Za-z][A-Za-z0-9_-]*/y;
const TAG_OPEN = /<udf\b/gi;
const MAX_DATA_BYTES = 65535;

function scriptError(line: number, reason: string) {
  return fail.badRequest(`UDF tag on line ${line}: ${reason}`, 'script');
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

function skipSpace(text: string, pos: number): number {
  let p = pos;
  while (p < text.length && /\s/.test(text.charAt(p))) p += 1;
  return p;
}

/** Reads the attributes of one tag from just after `<UDF` up to its `>` or `/>`. */
function readTag(text: string, start: number, line: number): { attributes: Map<Attribute, string>; end: number } {
  const attributes = new Map<Attribute, string>();
  let pos = start;
  for (;;) {
    pos = skipSpace(text, pos);
    if (pos >= text.length) throw scriptError(line, 'the tag is not closed with > or />');
    if (text.startsWith('/>', pos)) return { attributes, end: pos + 2 };
    if (text.charAt(pos) === '>') return { attributes, end: pos + 1 };
    ATTRIBUTE_NAME.lastIndex = pos;
    const written = ATTRIBUTE_NAME.exec(text)?.[0];
    if (!written)
      throw scriptError(line, `unexpected character ${JSON.stringify(text.charAt(pos))} where an attribute was expected`);
    pos = skipSpace(text, pos + written.length);
    if (text.charAt(pos) !== '=') throw scriptError(line, `attribute ${written} has no value (expected ${written}="...")`);
    pos = skipSpace(text, pos + 1);
    const quote = text.charAt(pos);
    if (quote !== '"' && quote !== "'") throw scriptError(line, `the value of ${written} must be in single or double quotes`);
    const close = text.indexOf(quote, pos + 1);
    const value = close === -1 ? null : text.slice(pos + 1, close);
    if (value === null || value.includes('\n'))
      throw scriptError(line, `the value of ${written} has no closing quote on its line`);
    const attribute = ATTRIBUTES[written.toLowerCase()];
    if (!attribute) {
      throw scriptError(
        line,
        `unknown attribute ${written} (allowed: name, label, example, default, oneOf, manyOf, header, required)`,
      );
    }
    if (attributes.has(attribute)) throw scriptError(line, `attribute ${attribute} is given twice`);
    attributes.set(attribute, value);
    pos = close + 1;
  }
}

function optionsOf(list: string): string[] {
  return list.split(',').map((o) => o.trim());
}

function toField(attributes: Map<Attribute, string>, line: number): UserDefinedField {
  const name = attributes.get('name');
  const label = attributes.get('label');
  if (name === undefined) throw scriptError(line, 'the name attribute is required');
  if (!VARIABLE_NAME.test(name)) {
    throw scriptError(line, `name ${JSON.stringify(name)} must be letters, digits and underscores, not starting with a digit`);
  }
  if (label === undefined || label.trim() === '') throw scriptError(line, `field ${name} needs a non-empty label attribute`);
  const oneOf = attributes.get('oneOf');
  const manyOf = attributes.get('manyOf');
  const fallback = attributes.get('default');
  const header = attributes.get('header');
  const required = attributes.get('required');
  if (oneOf !== undefined && manyOf !== undefined) throw scriptError(line, `field ${name} may have oneOf or manyOf, not both`);
  for (const [key, list] of [
    ['oneOf', oneOf],
    ['manyOf', manyOf],
  ] as const) {
    if (list !== undefined && optionsOf(list).some((o) => o === '')) {
      throw scriptError(line, `${key} of field ${name} must be a comma-separated list of non-empty options`);
    }
  }
  const field: UserDefinedField = {
    label,
    name,
    example: attributes.get('example') ?? '',
    ...(oneOf !== undefined ? { oneOf } : {}),
    ...(manyOf !== undefined ? { manyOf } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(header !== undefined ? { header } : {}),
    ...(required !== undefined ? { required } : {}),
  };
  // An empty default only makes the field optional; a non-empty one must be a value the field accepts.
  const problem = fallback ? checkChoice(field, fallback) : null;
  if (problem) throw scriptError(line, `the default of field ${name} must be ${problem}`);
  return field;
}

/**
 * The user-defined fields of a script, in the order of their `<UDF ...>` tags. A malformed tag is a
 * 400 on `script` saying which line and what is wrong.
 */
export function parseUserDefinedFields(script: string): UserDefinedField[] {
  const fields: UserDefinedField[] = [];
  const names = new Set<string>();
  const open = new RegExp(TAG_OPEN);
  for (let m = open.exec(script); m !== null; m = open.exec(script)) {
    const line = lineAt(script, m.index);
    const tag = readTag(script, m.index + m[0].length, line);
    const field = toField(tag.attributes, line);
    if (names.has(field.name)) throw scriptError(line, `field ${field.name} is defined more than once`);
    names.add(field.name);
    fields.push(field);
    open.lastIndex = tag.end;
  }
  return fields;
}

/** Scripts run through their interpreter line, so one must come first. */
export function checkScriptText(script: string): UserDefinedField[] {
  if (!script.startsWith('#!')) {
    throw fail.badRequest('The first line of a script must name its interpreter, starting with #! (e.g. #!/bin/bash)', 'script');
  }
  return parseUserDefinedFields(script);
}

/** What `value` must be to be an allowed choice of the field ("one of: ..."), or null when it is one. */
function checkChoice(field: UserDefinedField, value: string): string | null {
  if (field.oneOf !== undefined) {
    const options = optionsOf(field.oneOf);
    return options.includes(value) ? null : `one of: ${options.join(', ')}`;
  }
  if (field.manyOf !== undefined) {
    const options = optionsOf(field.manyOf);
    if (value === '') return null;
    const chosen = optionsOf(value);
    const wrong = chosen.some((c) => !options.includes(c)) || new Set(chosen).size !== chosen.length;
    return wrong ? `a comma-separated selection, each at most once, from: ${options.join(', ')}` : null;
  }
  return null;
}

/**
 * Checks deployment values against a script's fields: a field without a default is required, values
 * are strings, oneOf/manyOf restrict them, and keys the script does not define are refused.
 */
export function checkStackScriptData(
  fields: readonly UserDefinedField[],
  data: Record<string, unknown> | undefined,
): ErrorItem[] {
  const values = data ?? {};
  if (Buffer.byteLength(JSON.stringify(values)) > MAX_DATA_BYTES) {
    return [{ field: 'stackscript_data', reason: `Must be at most ${MAX_DATA_BYTES} bytes as JSON` }];
  }
  const problems: ErrorItem[] = [];
  const known = new Set(fields.map((f) => f.name));
  for (const field of fields) {
    const at = `stackscript_data.${field.name}`;
    const value = values[field.name];
    if (value === undefined) {
      if (field.default === undefined) problems.push({ field: at, reason: `Required by this StackScript (${field.label})` });
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({ field: at, reason: 'Must be a string' });
      continue;
    }
    const problem = checkChoice(field, value);
    if (problem) problems.push({ field: at, reason: `Must be ${problem}` });
  }
  for (const key of Object.keys(values)) {
    if (!known.has(key))
      problems.push({ field: `stackscript_data.${key}`, reason: 'Not a user-defined field of this StackScript' });
  }
  return problems;
}
