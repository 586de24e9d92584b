/**
 * How long each kind of simulated work takes, in simulated seconds (before CUMULO_TIME_SCALE).
 * Every operation that moves a resource through an intermediate state names one of these.
 */
export const TRANSITION_SECONDS = {
  node_provision: 20,
  node_boot: 10,
  node_shutdown: 8,
  node_reboot: 12,
  node_rebuild: 30,
  node_rescue: 10,
  node_resize: 60,
  node_migrate: 90,
  node_mutate: 60,
  node_clone: 40,
  node_password: 5,
  backup: 30,
  backup_restore: 40,
  disk_create: 5,
  disk_resize: 10,
  disk_clone: 15,
  disk_delete: 3,
  image_create: 30,
  upload_processing: 5,
} as const;

export type TransitionKind = keyof typeof TRANSITION_SECONDS;

export const TRANSITION_KINDS = Object.keys(TRANSITION_SECONDS) as TransitionKind[];

/** Simulated milliseconds a transition takes by default. */
export function defaultTransitionMs(kind: TransitionKind): number {
  return TRANSITION_SECONDS[kind] * 1000;
}
