import { type Static, type TSchema, Type } from 'typebox';
import { IntegerId, Nullable, StringEnum } from '../../http/schemas.ts';

const Permissions = Nullable(StringEnum(['read_only', 'read_write'] as const));

function globalGrants<P extends TSchema>(permissions: P) {
  return Type.Object({
    add_nodes: Type.Boolean(),
    add_longview: Type.Boolean(),
    longview_subscription: Type.Boolean(),
    account_access: permissions,
    cancel_account: Type.Boolean(),
    add_domains: Type.Boolean(),
    add_stackscripts: Type.Boolean(),
    add_nodebalancers: Type.Boolean(),
    add_images: Type.Boolean(),
    add_volumes: Type.Boolean(),
    add_firewalls: Type.Boolean(),
    // Always false: databases and VPCs are not offered here.
    add_databases: Type.Boolean(),
    add_vpcs: Type.Boolean(),
    // Always null: there are no parent and child accounts here.
    child_account_access: Nullable(Type.Boolean()),
  });
}
const GlobalGrantsSchema = globalGrants(Permissions);

const Grant = Type.Object({ id: Type.Integer(), permissions: Permissions, label: Type.String() });

/**
 * The grants object: the reference's entity lists and `firewall`, which it lacks (see grants.ts),
 * and those of later revisions, always empty here: databases and VPCs are not offered.
 */
export const GrantsSchema = Type.Object({
  global: GlobalGrantsSchema,
  node: Type.Array(Grant),
  domain: Type.Array(Grant),
  nodebalancer: Type.Array(Grant),
  image: Type.Array(Grant),
  longview: Type.Array(Grant),
  stackscript: Type.Array(Grant),
  volume: Type.Array(Grant),
  firewall: Type.Array(Grant),
  database: Type.Array(Grant),
  vpc: Type.Array(Grant),
});
export type Grants = Static<typeof GrantsSchema>;

/** `label` is read-only and ignored (clients send back the grants they read); a null permission takes the grant away. */
const GrantChange = Type.Object({ id: IntegerId, permissions: Permissions, label: Type.Optional(Type.String()) });
export type GrantChangeT = Static<typeof GrantChange>;
const GrantChanges = Type.Optional(Type.Array(GrantChange, { maxItems: 10000 }));

/** Everything is optional: what a request leaves out stays as it was. */
export const UpdateGrantsBody = Type.Object({
  global: Type.Optional(Type.Partial(globalGrants(Permissions))),
  node: GrantChanges,
  domain: GrantChanges,
  nodebalancer: GrantChanges,
  image: GrantChanges,
  longview: GrantChanges,
  stackscript: GrantChanges,
  volume: GrantChanges,
  firewall: GrantChanges,
  database: GrantChanges,
  vpc: GrantChanges,
});
export type UpdateGrants = Static<typeof UpdateGrantsBody>;
