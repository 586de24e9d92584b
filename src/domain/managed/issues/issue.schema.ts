import { type Static, Type } from 'typebox';
import { IntegerId, Timestamp } from '../../../http/schemas.ts';

export const IssueSchema = Type.Object({
  id: Type.Integer(),
  created: Timestamp,
  /** The ticket the issue opened. */
  entity: Type.Object({
    id: Type.Integer(),
    label: Type.String(),
    type: Type.Literal('ticket'),
    url: Type.String(),
  }),
  services: Type.Array(Type.Integer()),
});
export type Issue = Static<typeof IssueSchema>;

export const IssueParams = Type.Object({ issueId: IntegerId });
