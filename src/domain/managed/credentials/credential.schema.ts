import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, Timestamp } from '../../../http/schemas.ts';
import { PATTERN_REASON } from '../../../http/validation.ts';

/**
 * The reference's pattern is not anchored (it would take any text holding two such characters);
 * what it means: letters, digits, `-`, `_`, `.` and spaces only.
 */
export const CredentialLabel = Type.String({
  minLength: 2,
  maxLength: 75,
  pattern: '^[a-zA-Z0-9_ .-]{2,75}$',
  [PATTERN_REASON]: 'Must hold only letters, digits, spaces, -, _ and .',
});

const Username = Type.String({ maxLength: 5000, writeOnly: true });
const Password = Type.String({ minLength: 1, writeOnly: true });

export const CredentialParams = Type.Object({ credentialId: IntegerId });

export const CredentialSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  /** Null until the operator first reveals it. */
  last_decrypted: Nullable(Timestamp),
});
export type Credential = Static<typeof CredentialSchema>;

export const CreateCredentialBody = Type.Object({
  label: CredentialLabel,
  username: Type.Optional(Username),
  password: Password,
});
export type CreateCredential = Static<typeof CreateCredentialBody>;

/** The label only: username and password change through their own operation. */
export const UpdateCredentialBody = Type.Object({ label: Type.Optional(CredentialLabel) });
export type UpdateCredential = Static<typeof UpdateCredentialBody>;

/** A new password, and a new username when given (left out, the username stays). */
export const UpdateCredentialSecretsBody = Type.Object({
  username: Type.Optional(Username),
  password: Password,
});
export type UpdateCredentialSecrets = Static<typeof UpdateCredentialSecretsBody>;

export const ManagedSshKeySchema = Type.Object({ ssh_key: Type.String() });
export type ManagedSshKey = Static<typeof ManagedSshKeySchema>;

/** What the operator's reveal answers: the one place a credential's username and password are read back. */
export const RevealedCredentialSchema = Type.Object({
  id: Type.Integer(),
  account_id: Type.Integer(),
  label: Type.String(),
  username: Nullable(Type.String()),
  password: Type.String(),
  last_decrypted: Timestamp,
});
export type RevealedCredential = Static<typeof RevealedCredentialSchema>;

/** What the operator's reveal of an account's managed SSH key answers. */
export const RevealedSshKeySchema = Type.Object({
  account_id: Type.Integer(),
  ssh_key: Type.String(),
  private_key: Type.String({ description: 'OpenSSH private key format (ssh -i reads it)' }),
});
export type RevealedSshKey = Static<typeof RevealedSshKeySchema>;
