import { type Case, CONTENT_TYPES, type Operation, type Setting, urlOf, validates, withType } from './bad-input-request.ts';
import { type BodyValue, bodyVariants, hasRequired } from './bad-input-values.ts';

/** Request bodies for one operation: none, not JSON or not an object with each content type, and valid ones with one field spoiled. */

/** Whole bodies that are empty, not JSON or not an object, with each content type. */
export function contentCases(op: Operation, setting: Setting): Case[] {
  const url = urlOf(op, setting);
  const takesBody = op.body !== undefined;
  const cases: Case[] = [];
  const required = op.body !== undefined && hasRequired(op.body);
  // No body at all: empty, with any content type, or a JSON null.
  const none: [string, string | undefined, string][] = [
    ...Object.entries(CONTENT_TYPES).map(([name, type]): [string, string | undefined, string] => [
      `empty body: content type ${name}`,
      type,
      '',
    ]),
    ['body: JSON null', CONTENT_TYPES.json, 'null'],
  ];
  for (const [cls, type, payload] of none) {
    cases.push({
      cls: `${cls}${takesBody ? '' : ', operation without a body'}`,
      method: op.method,
      url,
      headers: withType(type),
      payload,
      expect: required ? 'refuse' : 'any',
      ...(required ? { status: 400 } : {}),
      no415: true,
    });
  }
  const notJson: [string, string | undefined, string][] = [];
  for (const [name, type] of Object.entries(CONTENT_TYPES)) {
    notJson.push([`form fields, content type ${name}`, type, 'label=x&size=1']);
    notJson.push([`plain text, content type ${name}`, type, 'hello']);
  }
  notJson.push(
    ['JSON sent as text/plain', CONTENT_TYPES.text, '{"label":"x"}'],
    ['malformed JSON', CONTENT_TYPES.json, '{"label":'],
    ['malformed JSON', CONTENT_TYPES.json, '\u0000'],
    ['JSON not an object', CONTENT_TYPES.json, '[]'],
    ['JSON not an object', CONTENT_TYPES.json, '"x"'],
    ['JSON not an object', CONTENT_TYPES.json, '1'],
    ['prototype poisoning', CONTENT_TYPES.json, '{"__proto__": {"x": 1}}'],
    ['prototype poisoning', CONTENT_TYPES.json, '{"constructor": {"prototype": {"x": 1}}}'],
    ['over the body limit', CONTENT_TYPES.json, `{"label": "${'x'.repeat(setting.bodyLimit)}"}`],
  );
  for (const [kind, type, payload] of notJson) {
    cases.push({
      cls: `body: ${kind}${takesBody ? '' : ', operation without a body'}`,
      method: op.method,
      url,
      headers: withType(type),
      payload,
      expect: takesBody ? 'refuse' : 'any',
    });
  }
  return cases;
}

export function fieldCases(op: Operation, setting: Setting): Case[] {
  if (!op.body) return [];
  const schema = op.body;
  const url = urlOf(op, setting);
  return bodyVariants(schema, setting.validBody, setting.refs, op.operationId).map((v: BodyValue) => {
    const payload = JSON.stringify(v.body);
    // The unknown key aside, the body is valid: it may be accepted, and then the key is named as ignored.
    const valid = v.ignored !== undefined || validates(schema, 'body', v.body);
    const refuse = v.mustRefuse || !valid;
    return {
      cls: `body: ${v.kind}`,
      method: op.method,
      url,
      headers: withType(CONTENT_TYPES.json),
      payload,
      expect: refuse ? 'refuse' : 'any',
      ...(refuse ? { field: v.field } : {}),
      ...(v.ignored !== undefined ? { ignored: v.ignored } : {}),
    };
  });
}
