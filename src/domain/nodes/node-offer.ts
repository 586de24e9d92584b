import type { Node } from './node.schema.ts';

type OfferField =
  | 'has_user_data'
  | 'placement_group'
  | 'disk_encryption'
  | 'lke_cluster_id'
  | 'capabilities'
  | 'interface_generation'
  | 'maintenance_policy'
  | 'locks';

/**
 * The node fields of later revisions that say what this service does not offer (placement groups,
 * clusters, user data, disk encryption, locks, maintenance choices), the same on every node. The
 * interfaces are the configs' (legacy_config).
 */
export const NODE_OFFER: Readonly<Pick<Node, OfferField>> = {
  has_user_data: false,
  placement_group: null,
  disk_encryption: 'disabled',
  lke_cluster_id: null,
  capabilities: [],
  interface_generation: 'legacy_config',
  maintenance_policy: 'node/migrate',
  locks: [],
};
