import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareOperation, type JsonObject, type Mismatch, shapeOf } from '../helpers/openapi-compare.ts';

/** A one-operation document: GET (or another method) on `path` answering `schema`. */
function doc(op: JsonObject, schemas: JsonObject = {}, method = 'get', path = '/things/{thingId}'): JsonObject {
  return { openapi: '3.0.3', paths: { [path]: { [method]: op } }, components: { schemas } };
}

function answering(schema: JsonObject, extra: JsonObject = {}): JsonObject {
  return { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } }, ...extra };
}

function diff(reference: JsonObject, actual: JsonObject, method = 'get', path = '/things/{thingId}'): string[] {
  return compareOperation(reference, actual, method, path).map((m: Mismatch) => `${m.path} ${m.kind}`);
}

const Thing = {
  type: 'object',
  properties: {
    id: { type: 'integer', readOnly: true },
    label: { type: 'string' },
    status: { type: 'string', enum: ['on', 'off'] },
    note: { type: 'string', nullable: true },
    tags: { type: 'array', items: { type: 'string' } },
    specs: { type: 'object', properties: { disk: { type: 'integer' }, price: { type: 'number' } } },
    secret: { type: 'string', writeOnly: true },
  },
};

/** The same shape as Thing, written the way the generated document spells it. */
function generatedThing(): JsonObject {
  return {
    type: 'object',
    required: ['id', 'label', 'status', 'note', 'tags', 'specs'],
    properties: {
      id: { type: 'integer' },
      label: { type: 'string' },
      status: {
        anyOf: [
          { type: 'string', enum: ['off'] },
          { type: 'string', enum: ['on'] },
        ],
      },
      note: { type: 'string', nullable: true },
      tags: { type: 'array', items: { type: 'string' } },
      specs: { type: 'object', properties: { disk: { type: 'integer' }, price: { type: 'number' } } },
    },
  };
}

const reference = doc(answering({ $ref: '#/components/schemas/Thing' }), { Thing });

describe('openapi comparison helper', () => {
  test('equal shapes written differently compare equal', () => {
    assert.deepEqual(diff(reference, doc(answering(generatedThing()))), []);
  });

  test('allOf and references into properties are resolved', () => {
    const ref = doc(
      answering({
        allOf: [
          { $ref: '#/components/schemas/Base' },
          { properties: { size: { $ref: '#/components/schemas/Base/properties/id' } } },
        ],
      }),
      { Base: { type: 'object', properties: { id: { type: 'integer' } } } },
    );
    const mine = doc(answering({ type: 'object', properties: { id: { type: 'integer' }, size: { type: 'integer' } } }));
    assert.deepEqual(diff(ref, mine), []);
    const wrong = doc(answering({ type: 'object', properties: { id: { type: 'integer' }, size: { type: 'string' } } }));
    assert.deepEqual(diff(ref, wrong), ['response.size type']);
  });

  test('missing (readOnly too), extra and nested properties are each reported with their path', () => {
    const mine = generatedThing() as { properties: Record<string, JsonObject> };
    delete mine.properties.label;
    delete mine.properties.id;
    mine.properties.extra = { type: 'boolean' };
    mine.properties.specs = { type: 'object', properties: { disk: { type: 'integer' } } };
    assert.deepEqual(diff(reference, doc(answering(mine))).sort(), [
      'response.extra property',
      'response.id property',
      'response.label property',
      'response.specs.price property',
    ]);
  });

  test('types: integer, number and string are told apart, inside array items too', () => {
    const mine = generatedThing() as { properties: Record<string, JsonObject> };
    mine.properties.id = { type: 'number' };
    mine.properties.tags = { type: 'array', items: { type: 'integer' } };
    mine.properties.specs = { type: 'object', properties: { disk: { type: 'integer' }, price: { type: 'string' } } };
    assert.deepEqual(diff(reference, doc(answering(mine))).sort(), [
      'response.id type',
      'response.specs.price type',
      'response.tags[] type',
    ]);
  });

  test('enums compare as sets; nullability both ways', () => {
    const mine = generatedThing() as { properties: Record<string, JsonObject> };
    mine.properties.status = { type: 'string', enum: ['on', 'off', 'broken'] };
    mine.properties.note = { type: 'string' };
    mine.properties.label = { type: 'string', nullable: true };
    assert.deepEqual(diff(reference, doc(answering(mine))).sort(), [
      'response.label nullable',
      'response.note nullable',
      'response.status enum',
    ]);
    const plain = generatedThing() as { properties: Record<string, JsonObject> };
    plain.properties.status = { type: 'string' };
    assert.deepEqual(diff(reference, doc(answering(plain))), ['response.status enum']);
  });

  test('collection envelopes compare item by item', () => {
    const envelope = (items: JsonObject) => ({
      type: 'object',
      properties: { data: { type: 'array', items }, page: { type: 'integer' } },
    });
    const ref = doc(answering(envelope({ $ref: '#/components/schemas/Thing' })), { Thing });
    const mine = generatedThing() as { properties: Record<string, JsonObject> };
    mine.properties.status = { type: 'string', enum: ['on'] };
    assert.deepEqual(diff(ref, doc(answering(envelope(mine)))), ['response.data[].status enum']);
  });

  test('required request fields are compared; readOnly ones do not count', () => {
    const body = (schema: JsonObject) => ({ requestBody: { content: { 'application/json': { schema } } } });
    const ref = doc(
      answering({}, body({ allOf: [{ $ref: '#/components/schemas/Thing' }], required: ['label', 'id'] })),
      { Thing },
      'post',
    );
    const ok = doc(answering({}, body({ type: 'object', required: ['label'], properties: {} })), {}, 'post');
    assert.deepEqual(diff(ref, ok, 'post'), []);
    const more = doc(answering({}, body({ type: 'object', required: ['label', 'status'], properties: {} })), {}, 'post');
    assert.deepEqual(diff(ref, more, 'post'), ['requestBody.required required']);
    const none = doc(answering({}), {}, 'post');
    assert.deepEqual(diff(ref, none, 'post'), ['requestBody.required required']);
  });

  test('oauth scopes are compared; public operations have no security', () => {
    const secured = (scopes: string[]) =>
      answering(generatedThing(), { security: [{ personalAccessToken: [] }, { oauth: scopes }] });
    const ref = doc(secured(['things:read_only']));
    assert.deepEqual(diff(ref, doc(secured(['things:read_only']))), []);
    assert.deepEqual(diff(ref, doc(secured(['things:read_write']))), ['security.oauth security']);
    assert.deepEqual(diff(ref, doc(answering(generatedThing(), { security: [] }))), ['security.oauth security']);
    const publicRef = doc(answering(generatedThing()));
    assert.deepEqual(diff(publicRef, doc(answering(generatedThing(), { security: [] }))), []);
    assert.deepEqual(diff(publicRef, doc(secured([]))), ['security.oauth security']);
  });

  test('unknown operations, other path parameter names and success statuses are reported', () => {
    assert.deepEqual(diff(reference, doc(answering(generatedThing()), {}, 'get', '/others'), 'get', '/others'), [
      'operation operation',
    ]);
    assert.deepEqual(diff(reference, doc(answering(generatedThing()), {}, 'get', '/things/{id}'), 'get', '/things/{id}'), [
      'operation operation',
    ]);
    const noContent = doc({ responses: { '204': { description: 'none' } } });
    assert.deepEqual(diff(reference, noContent), ['responses status']);
  });

  test('recursive schemas terminate', () => {
    const Node = { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } };
    const shape = shapeOf({ components: { schemas: { Node } } }, { $ref: '#/components/schemas/Node' });
    assert.deepEqual([...shape.types], ['object']);
    assert.equal(shape.properties.get('child')?.types.size, 0, 'the repeated reference is left open');
  });
});
