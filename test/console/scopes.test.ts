import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCOPE_AREAS } from '../../console/src/pages/account/scopes.ts';
import { SCOPE_RESOURCES } from '../../src/domain/profile/scopes.ts';

test("the console's scope picker offers every area a token's scopes may name, in the API's order", () => {
  assert.deepEqual(
    SCOPE_AREAS.map(([area]) => area),
    [...SCOPE_RESOURCES],
  );
});
