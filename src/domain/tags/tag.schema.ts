import { type Static, Type } from 'typebox';
import { IntegerId } from '../../http/schemas.ts';
import { DomainSchema } from '../domains/domain.schema.ts';
import { NodeSchema, TagLabel } from '../nodes/node.schema.ts';

export const TagSchema = Type.Object({ label: Type.String() });
export type Tag = Static<typeof TagSchema>;

const Ids = Type.Array(IntegerId, { maxItems: 100 });

/** A tag to make, and the objects to tag with it at once. */
export const CreateTagBody = Type.Object({
  label: TagLabel,
  nodes: Type.Optional(Ids),
  domains: Type.Optional(Ids),
  volumes: Type.Optional(Ids),
  nodebalancers: Type.Optional(Ids),
});
export type CreateTag = Static<typeof CreateTagBody>;

/** Any text: a label no tag has names nothing (404). */
export const TagParams = Type.Object({ label: Type.String() });

/** One object carrying the tag: its type (`node`, `domain`) and its whole API object. */
export const TaggedObjectSchema = Type.Object({
  type: Type.String(),
  data: Type.Union([NodeSchema, DomainSchema]),
});
export type TaggedObject = Static<typeof TaggedObjectSchema>;
