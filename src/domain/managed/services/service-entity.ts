import type { EntityRef } from '../../events/event.service.ts';

/** A managed service as events name it. */
export function serviceEntity(service: { id: number; label: string }): EntityRef {
  return { id: service.id, type: 'managed_service', label: service.label, url: `/v4/managed/services/${service.id}` };
}
