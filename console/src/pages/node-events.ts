import { type ApiEvent, useEvents } from '../hooks.ts';

/** The feed's entities; a second entity's id comes as text. */
type Entity = { id: number | string; type: string } | null;

/** Whether an event is about a node (one of `ids`, when given), as its subject or as its second entity (a clone's target). */
function aboutNode(entity: Entity | undefined, ids?: number[]): boolean {
  return entity?.type === 'node' && (!ids || ids.includes(Number(entity.id)));
}

/** Reloads when an event about a node (or one of `ids`) arrives: its status moves with them. */
export function useNodeEvents(reload: () => void, ids?: number[]): void {
  useEvents((events: ApiEvent[]) => {
    if (events.some((e) => aboutNode(e.entity, ids) || aboutNode(e.secondary_entity, ids))) reload();
  });
}
