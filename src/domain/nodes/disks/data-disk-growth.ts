import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { NodeRow } from '../node.repository.ts';
import { type DiskRow, findDisks } from './disk.repository.ts';

/**
 * What `allow_auto_disk_resize` grows when a node moves to a type with `capacity` MB of storage: its
 * only data disk (swap aside), into the space the other disks leave; null when it has several data
 * disks, none, or nothing to gain.
 */
export async function dataDiskGrowth(
  db: Kysely<Database>,
  node: Pick<NodeRow, 'id' | 'account_id'>,
  capacity: number,
): Promise<{ disk: DiskRow; sizeMb: number } | null> {
  const disks = await findDisks(db, node.account_id, node.id);
  const data = disks.filter((d) => d.filesystem !== 'swap');
  const [only] = data;
  if (!only || data.length !== 1) return null;
  const others = disks.reduce((sum, d) => sum + d.size, 0) - only.size;
  return capacity - others > only.size ? { disk: only, sizeMb: capacity - others } : null;
}
