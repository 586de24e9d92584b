import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, Timestamp } from '../../../http/schemas.ts';
import { PATTERN_REASON } from '../../../http/validation.ts';

const Phone = Type.String({
  maxLength: 32,
  pattern: '^(?=.*[0-9])[0-9+(). /-]+$',
  [PATTERN_REASON]: 'Must be a phone number: digits, with spaces, +, -, ., / and parentheses if you like',
});

/** The contact as the API shows it; a contact made without a name or email has none (null) until given one. */
export const ContactSchema = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Type.Object({ primary: Nullable(Type.String()), secondary: Nullable(Type.String()) }),
  group: Nullable(Type.String()),
  updated: Timestamp,
});
export type Contact = Static<typeof ContactSchema>;

/** Create and update take the same fields, none required; an update changes only the fields it names. */
export const ContactBody = Type.Object({
  name: Type.Optional(
    Type.String({ minLength: 2, maxLength: 64, pattern: '\\S', [PATTERN_REASON]: 'Must hold more than white space' }),
  ),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  phone: Type.Optional(Type.Object({ primary: Type.Optional(Nullable(Phone)), secondary: Type.Optional(Nullable(Phone)) })),
  group: Type.Optional(Nullable(Type.String({ minLength: 2, maxLength: 50 }))),
});
export type ContactInput = Static<typeof ContactBody>;

export const ContactParams = Type.Object({ contactId: IntegerId });
