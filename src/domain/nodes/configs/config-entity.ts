import type { SecondaryRef } from '../../events/event.service.ts';
import type { ConfigRow } from './config.repository.ts';

/** A config as the secondary entity of its node's events: its own changes, and the boots and reboots into it. */
export function configSecondary(row: Pick<ConfigRow, 'id' | 'label' | 'node_id'>): SecondaryRef {
  return { id: row.id, type: 'node_config', label: row.label, url: `/v4/node/instances/${row.node_id}/configs/${row.id}` };
}
