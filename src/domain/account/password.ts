import { Type } from 'typebox';
import { PATTERN_REASON } from '../../http/validation.ts';

/** A user's password as the admin API and the CLI take it. */
export const PasswordBody = Type.Object({
  password: Type.String({ minLength: 8, maxLength: 128, pattern: '\\S', [PATTERN_REASON]: 'Must hold more than white space' }),
});
