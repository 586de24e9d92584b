import type { Catalog } from '../catalog/catalog.ts';
import { NODE_VIEW_COLUMNS } from './node.repository.ts';
import { NODE_OFFER } from './node-offer.ts';

/** A node's view row as its columns' values, in NODE_VIEW_COLUMNS' order (a read in array mode). */
export type NodeViewValues = readonly unknown[];

/** What a node shows of where it runs: its region's site type and host. */
export interface NodePlace {
  siteType: string;
  hostUuid: string;
}

export function nodePlace(catalog: Catalog, regionId: string): NodePlace {
  return { siteType: catalog.region(regionId)?.site_type ?? 'core', hostUuid: catalog.hostUuid(regionId) };
}

/** NODE_OFFER as the end of a node's JSON text, after its host_uuid. */
const OFFER_TEXT = JSON.stringify(NODE_OFFER).slice(1, -1);

const at = Object.fromEntries(NODE_VIEW_COLUMNS.map((column, i) => [column, i])) as Record<
  (typeof NODE_VIEW_COLUMNS)[number],
  number
>;

const text = (value: unknown): string => (value === null ? 'null' : JSON.stringify(value));

/**
 * A node's API object as JSON text, written straight from its values: what nodeRowToNode makes and
 * NodeSchema's serializer writes of it, byte for byte (test/nodes/node-json.test.ts holds the two
 * together). The tags and IPv4 addresses are the JSON arrays the database keeps on the row,
 * spliced as they are; the specs and place come from the catalog.
 */
export function nodeJson(v: NodeViewValues, catalog: Catalog): string {
  const type = catalog.type(v[at.type] as string);
  const region = v[at.region] as string;
  const ipv6 = v[at.ipv6];
  const backups = v[at.backups_enabled] === 1;
  const lastBackup = v[at.backups_last_successful];
  return `{"id":${v[at.id]},"label":${text(v[at.label])},"region":${text(region)},"image":${text(v[at.image])},"type":${text(
    v[at.type],
  )},"group":${text(v[at.node_group])},"tags":${v[at.tag_list]},"status":${text(v[at.status])},"hypervisor":"kvm","created":${text(
    v[at.created],
  )},"updated":${text(v[at.updated])},"ipv4":${v[at.ipv4_list]},"ipv6":${ipv6 === null ? 'null' : text(`${ipv6}/128`)},"specs":{"disk":${
    type?.disk ?? 0
  },"memory":${type?.memory ?? 0},"vcpus":${type?.vcpus ?? 0},"transfer":${type?.transfer ?? 0},"gpus":${type?.gpus ?? 0},"accelerated_devices":0},"alerts":{"cpu":${v[at.alerts_cpu]},"network_in":${
    v[at.alerts_network_in]
  },"network_out":${v[at.alerts_network_out]},"transfer_quota":${v[at.alerts_transfer_quota]},"io":${v[at.alerts_io]},"system_alerts":[],"user_alerts":[]},"backups":{"enabled":${backups},"schedule":{"day":${text(
    v[at.backups_day],
  )},"window":${text(v[at.backups_window])}},"last_successful":${text(lastBackup)},"available":${backups && lastBackup !== null}},"watchdog_enabled":${
    v[at.watchdog_enabled] === 1
  },"site_type":${text(catalog.region(region)?.site_type ?? 'core')},"host_uuid":${text(catalog.hostUuid(region))},${OFFER_TEXT}}`;
}
