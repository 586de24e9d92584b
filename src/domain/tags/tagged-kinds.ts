import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import type { AccountScope } from '../account/principal.ts';
import type { Domain } from '../domains/domain.schema.ts';
import { domainsWithIds } from '../domains/domain.service.ts';
import { domainNamedIn } from '../domains/domain-access.ts';
import type { Node } from '../nodes/node.schema.ts';
import { nodesWithIds } from '../nodes/node.service.ts';
import { nodeNamedIn } from '../nodes/node-access.ts';

/** A kind of object a tag's create may name and its objects list shows, and how its group serves it. */
export interface TaggedKind {
  type: 'node' | 'domain';
  /** The create body's field naming objects of this kind. */
  field: 'nodes' | 'domains';
  /**
   * Locks an object a create names, which needs read_write on it: one the caller cannot see is a
   * 400 naming `field`, a read_only grant a 403.
   */
  claim(db: Kysely<Database>, scope: AccountScope, id: number, field: string): Promise<unknown>;
  /** Objects of the account as the API shows them, by id. */
  view(db: Kysely<Database>, ctx: Context, accountId: number, ids: readonly number[]): Promise<(Node | Domain)[]>;
}

export const TAGGED_KINDS: readonly TaggedKind[] = [
  {
    type: 'node',
    field: 'nodes',
    claim: (db, scope, id, field) => nodeNamedIn(db, scope, id, 'read_write', field),
    view: (db, ctx, accountId, ids) => nodesWithIds(db, ctx, accountId, ids),
  },
  {
    type: 'domain',
    field: 'domains',
    claim: (db, scope, id, field) => domainNamedIn(db, scope, id, 'read_write', field),
    view: (db, _ctx, accountId, ids) => domainsWithIds(db, accountId, ids),
  },
];

/** Kinds the create body takes that this service does not have: naming any object of them is a 400. */
export const ABSENT_KINDS = [
  { field: 'volumes', what: 'volume' },
  { field: 'nodebalancers', what: 'NodeBalancer' },
] as const;
