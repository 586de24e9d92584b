/** The compute layer's key of a node's machine. */
export function machineKey(nodeId: number): string {
  return `node-${nodeId}`;
}

/** The compute layer's key of a disk. */
export function diskKey(diskId: number): string {
  return `disk-${diskId}`;
}

/** The node a machine key names, or null for a key that names none. */
export function nodeIdOfMachine(key: string): number | null {
  const match = /^node-(\d+)$/.exec(key);
  return match ? Number(match[1]) : null;
}

/** The compute layer's key of the scratch disk a node's rescue system boots from. */
export function rescueDiskKey(nodeId: number): string {
  return `rescue-${nodeId}`;
}

/** The compute layer's key of a VLAN: a VLAN is its account's (the same label in two accounts is two segments). */
export function vlanKey(accountId: number, label: string): string {
  return `${accountId}.${label}`;
}
