import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkScriptText,
  checkStackScriptData,
  parseUserDefinedFields,
  type UserDefinedField,
} from '../../src/domain/stackscripts/stackscript-udf.ts';
import { ApiError } from '../../src/errors.ts';

/** The 400 a call throws: its field and reason. */
function refusal(fn: () => unknown): { field: string | undefined; reason: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, `an ApiError, not ${String(e)}`);
    assert.equal(e.status, 400);
    const first = e.errors[0];
    assert.ok(first);
    return { field: first.field, reason: first.reason };
  }
  assert.fail('expected a 400');
}

describe('UDF tags', () => {
  test('every attribute, in tag order, single or double quotes, any attribute case', () => {
    const script = [
      '#!/bin/bash',
      '# <UDF name="DB_PASSWORD" Label="Database password" example="hunter2" />',
      "# <UDF name='release' label='Release' oneOf='stable,beta' default='stable'>",
      '# <udf NAME="extras" LABEL="Extras" manyof="git,vim,curl" default="" />',
      '# <UDF name="soa" label="Settings" Header="Yes" default="" required="Yes" />',
      'echo "$DB_PASSWORD"',
    ].join('\n');
    assert.deepEqual(parseUserDefinedFields(script), [
      { label: 'Database password', name: 'DB_PASSWORD', example: 'hunter2' },
      { label: 'Release', name: 'release', example: '', oneOf: 'stable,beta', default: 'stable' },
      { label: 'Extras', name: 'extras', example: '', manyOf: 'git,vim,curl', default: '' },
      { label: 'Settings', name: 'soa', example: '', default: '', header: 'Yes', required: 'Yes' },
    ]);
  });

  test('a script without tags has no fields; a tag may span lines and hold > inside quotes', () => {
    assert.deepEqual(parseUserDefinedFields('#!/bin/sh\necho hi\n'), []);
    const fields = parseUserDefinedFields('#!/bin/sh\n# <UDF name="a"\n   label="Pick > one" example=\'x "y"\'\n/>');
    assert.deepEqual(fields, [{ label: 'Pick > one', name: 'a', example: 'x "y"' }]);
  });

  test('malformed tags are a 400 on script naming the line and the problem', () => {
    const cases: [string, RegExp][] = [
      ['#!/bin/sh\n# <UDF label="x">', /line 2: the name attribute is required/],
      ['#!/bin/sh\n<UDF name="a" label="b"', /line 2: the tag is not closed/],
      ['#!/bin/sh\n<UDF name="a label="b">', /unexpected character|must be in single or double quotes|no value/],
      ['#!/bin/sh\n<UDF name="a" label="b>\necho', /no closing quote/],
      ['#!/bin/sh\n<UDF name=a label="b">', /must be in single or double quotes/],
      ['#!/bin/sh\n<UDF name="a" label>', /label has no value/],
      ['#!/bin/sh\n<UDF name="a" label="b" colour="red">', /unknown attribute colour/],
      ['#!/bin/sh\n<UDF name="a" name="b" label="c">', /attribute name is given twice/],
      ['#!/bin/sh\n<UDF name="1st" label="c">', /letters, digits and underscores/],
      ['#!/bin/sh\n<UDF name="a-b" label="c">', /letters, digits and underscores/],
      ['#!/bin/sh\n<UDF name="a" label="">', /non-empty label/],
      ['#!/bin/sh\n<UDF name="a" label="A" oneOf="x" manyOf="y">', /oneOf or manyOf, not both/],
      ['#!/bin/sh\n<UDF name="a" label="A" oneOf="x,,y">', /non-empty options/],
      ['#!/bin/sh\n<UDF name="a" label="A" oneOf="x,y" default="z">', /default of field a must be one of: x, y/],
      ['#!/bin/sh\n<UDF name="a" label="A" manyOf="x,y" default="x,q">', /default of field a must be a comma-separated/],
      ['#!/bin/sh\n<UDF name="a" label="A">\n\n<UDF name="a" label="B">', /line 4: field a is defined more than once/],
      ['#!/bin/sh\n<UDF name="a" label="A" @>', /unexpected character "@"/],
    ];
    for (const [script, reason] of cases) {
      const r = refusal(() => parseUserDefinedFields(script));
      assert.equal(r.field, 'script', script);
      assert.match(r.reason, reason, script);
    }
  });

  test('the first line must start with #!', () => {
    assert.deepEqual(checkScriptText('#!/bin/bash\n'), []);
    for (const script of ['echo hi', ' #!/bin/bash', '\n#!/bin/bash', '# !/bin/bash']) {
      const r = refusal(() => checkScriptText(script));
      assert.equal(r.field, 'script');
      assert.match(r.reason, /#!/);
    }
  });
});

describe('stackscript_data against the fields', () => {
  const fields: UserDefinedField[] = [
    { label: 'Password', name: 'pw', example: 'x' },
    { label: 'Release', name: 'release', example: '', oneOf: 'stable,beta', default: 'stable' },
    { label: 'Extras', name: 'extras', example: '', manyOf: 'git, vim,curl', default: '' },
  ];

  test('valid data: required given, optional left out, choices from the lists', () => {
    assert.deepEqual(checkStackScriptData(fields, { pw: 'secret' }), []);
    assert.deepEqual(checkStackScriptData(fields, { pw: '', release: 'beta', extras: 'curl,git' }), []);
    assert.deepEqual(checkStackScriptData(fields, { pw: 'a', extras: 'vim' }), []);
    assert.deepEqual(checkStackScriptData([], undefined), []);
    assert.deepEqual(checkStackScriptData([], {}), []);
  });

  test('every problem at once, each naming stackscript_data.<name>', () => {
    const problems = checkStackScriptData(fields, { release: 'nightly', extras: 'git,emacs', other: 'x' });
    assert.deepEqual(
      problems.map((p) => p.field),
      ['stackscript_data.pw', 'stackscript_data.release', 'stackscript_data.extras', 'stackscript_data.other'],
    );
    assert.match(problems[0]?.reason ?? '', /Required/);
    assert.match(problems[1]?.reason ?? '', /one of: stable, beta/);
    assert.match(problems[2]?.reason ?? '', /comma-separated selection/);
    assert.match(problems[3]?.reason ?? '', /Not a user-defined field/);
  });

  test('values must be strings; a choice may not repeat; a missing required field is named', () => {
    for (const value of [1, true, null, ['a'], { a: 1 }]) {
      assert.deepEqual(checkStackScriptData(fields, { pw: value }), [
        { field: 'stackscript_data.pw', reason: 'Must be a string' },
      ]);
    }
    assert.equal(checkStackScriptData(fields, { pw: 'a', extras: 'git,git' })[0]?.field, 'stackscript_data.extras');
    assert.deepEqual(
      checkStackScriptData(fields, undefined).map((p) => p.field),
      ['stackscript_data.pw'],
    );
  });

  test('oversized data is refused as a whole', () => {
    const problems = checkStackScriptData(fields, { pw: 'x'.repeat(70000) });
    assert.deepEqual(
      problems.map((p) => p.field),
      ['stackscript_data'],
    );
  });
});
