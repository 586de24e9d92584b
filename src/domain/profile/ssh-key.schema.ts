import { type Static, Type } from 'typebox';
import { IntegerId, Timestamp } from '../../http/schemas.ts';

export const SshKeySchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  ssh_key: Type.String(),
  created: Timestamp,
});
export type SshKey = Static<typeof SshKeySchema>;

export const CreateSshKeyBody = Type.Object({
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  // Optional only in the schema, as the reference leaves it; the service requires it.
  ssh_key: Type.Optional(Type.String()),
});
export type CreateSshKey = Static<typeof CreateSshKeyBody>;

/** Only the label changes; the key itself and the other fields are read-only and ignored. */
export const UpdateSshKeyBody = Type.Object({ label: Type.Optional(Type.String({ maxLength: 64 })) });
export type UpdateSshKey = Static<typeof UpdateSshKeyBody>;

export const SshKeyParams = Type.Object({ sshKeyId: IntegerId });
