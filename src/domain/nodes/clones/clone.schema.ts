import { type Static, Type } from 'typebox';
import { IntegerId, Nullable } from '../../../http/schemas.ts';
import { NodeLabel } from '../node.schema.ts';

/** Either `node_id` (an existing target) or the fields of a new node (`region` and `type` at least). */
export const CloneNodeBody = Type.Object({
  node_id: Type.Optional(Nullable(IntegerId)),
  region: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  label: Type.Optional(NodeLabel),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  backups_enabled: Type.Optional(Type.Boolean()),
  disks: Type.Optional(Type.Array(IntegerId, { maxItems: 100 })),
  configs: Type.Optional(Type.Array(IntegerId, { maxItems: 100 })),
});
export type CloneNode = Static<typeof CloneNodeBody>;
