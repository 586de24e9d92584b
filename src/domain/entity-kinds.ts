import type { EntityKind } from './account/entity-access.ts';
import type { GrantEntityType } from './account/grants.ts';
import { domainKind } from './domains/domain-kind.ts';
import { firewallKind } from './firewalls/firewall-kind.ts';
import { imageKind } from './images/image-kind.ts';
import { nodeKind } from './nodes/node-kind.ts';
import { stackScriptKind } from './stackscripts/stackscript-kind.ts';

/**
 * Every kind of entity the service has, as its group describes it: what grants list and check, what
 * tags may be put on, and what access checks look up. A grantable type missing here (NodeBalancers,
 * Longview clients, volumes) has no table in this service.
 */
let kinds: readonly EntityKind[] | undefined;

export function entityKinds(): readonly EntityKind[] {
  // Built on first use: the groups' modules import one another, so none is read while they load.
  kinds ??= [nodeKind, domainKind, firewallKind, imageKind, stackScriptKind] as EntityKind[];
  return kinds;
}

export function entityKind(type: GrantEntityType): EntityKind | undefined {
  return entityKinds().find((k) => k.type === type);
}

/** The kinds a tag may be put on, each with its `tagging`. */
export function taggedKinds(): (EntityKind & { tagging: NonNullable<EntityKind['tagging']> })[] {
  return entityKinds().filter((k): k is EntityKind & { tagging: NonNullable<EntityKind['tagging']> } => k.tagging !== undefined);
}
