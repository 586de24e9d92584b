import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { type NodeRow, nodeLabelTaken, updateNodeRow } from './node.repository.ts';

const MAX_LABEL = 32;

/** Refuses a label another node of the account already has. */
export async function assertLabelFree(db: Kysely<Database>, accountId: number, label: string, exceptId?: number): Promise<void> {
  if (await nodeLabelTaken(db, accountId, label, exceptId)) {
    throw fail.badRequest(`Label must be unique among your nodes: ${label} is taken`, 'label');
  }
}

/** `debian-us-east`: the image's vendor (or `node`) and the region, to which the node id is appended. */
export function defaultLabelBase(vendor: string | null, region: string): string {
  const distro = (vendor ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
  const start = /^[a-z]/.test(distro) ? distro.slice(0, 10) : 'node';
  return `${start}-${region}`;
}

/**
 * Gives a node created without a label its default, `<base>-<id>`: unique because ids are, unless
 * a user picked that very label for another node, in which case a counter is added.
 */
export async function assignDefaultLabel(db: Kysely<Database>, node: NodeRow, base: string): Promise<NodeRow> {
  for (let n = 1; ; n += 1) {
    const suffix = n === 1 ? `-${node.id}` : `-${node.id}-${n}`;
    const label = `${base.slice(0, MAX_LABEL - suffix.length).replace(/[-_.]+$/, '')}${suffix}`;
    if (!(await nodeLabelTaken(db, node.account_id, label, node.id))) {
      return updateNodeRow(db, node.account_id, node.id, { label });
    }
  }
}
