import type { NodeTypeDataT } from '../catalog/catalog.ts';
import { NODE_VIEW_COLUMNS } from './node.repository.ts';

/** A node's view row as its columns' values, in NODE_VIEW_COLUMNS' order (a read in array mode). */
export type NodeViewValues = readonly unknown[];

const at = Object.fromEntries(NODE_VIEW_COLUMNS.map((column, i) => [column, i])) as Record<
  (typeof NODE_VIEW_COLUMNS)[number],
  number
>;

const text = (value: unknown): string => (value === null ? 'null' : JSON.stringify(value));

/** The type a node's values name (its specs come from the catalog). */
export function nodeTypeOf(values: NodeViewValues): string {
  return values[at.type] as string;
}

/**
 * A node's API object as JSON text, written straight from its values: what nodeRowToNode makes and
 * NodeSchema's serializer writes of it, byte for byte (test/nodes/node-json.test.ts holds the two
 * together). The tags and IPv4 addresses are the JSON arrays the database keeps on the row,
 * spliced as they are.
 */
export function nodeJson(v: NodeViewValues, type: NodeTypeDataT | undefined): string {
  const ipv6 = v[at.ipv6];
  return `{"id":${v[at.id]},"label":${text(v[at.label])},"region":${text(v[at.region])},"image":${text(v[at.image])},"type":${text(
    v[at.type],
  )},"group":${text(v[at.node_group])},"tags":${v[at.tag_list]},"status":${text(v[at.status])},"hypervisor":"kvm","created":${text(
    v[at.created],
  )},"updated":${text(v[at.updated])},"ipv4":${v[at.ipv4_list]},"ipv6":${ipv6 === null ? 'null' : text(`${ipv6}/128`)},"specs":{"disk":${
    type?.disk ?? 0
  },"memory":${type?.memory ?? 0},"vcpus":${type?.vcpus ?? 0},"transfer":${type?.transfer ?? 0}},"alerts":{"cpu":${v[at.alerts_cpu]},"network_in":${
    v[at.alerts_network_in]
  },"network_out":${v[at.alerts_network_out]},"transfer_quota":${v[at.alerts_transfer_quota]},"io":${v[at.alerts_io]}},"backups":{"enabled":${
    v[at.backups_enabled] === 1
  },"schedule":{"day":${text(v[at.backups_day])},"window":${text(v[at.backups_window])}},"last_successful":${text(
    v[at.backups_last_successful],
  )}},"watchdog_enabled":${v[at.watchdog_enabled] === 1}}`;
}
