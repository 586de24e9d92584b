import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { grantedTo } from '../../../db/grant-scope.ts';
import type { AccountScope } from '../../account/principal.ts';

/** What capturing an image needs to know about a disk and its node. */
export interface DiskForImage {
  id: number;
  label: string;
  /** MB */
  size: number;
  status: string;
  filesystem: string;
  /** The image the disk was deployed from, if any. */
  image: string | null;
  nodeId: number;
  nodeLabel: string;
  nodeRegion: string;
  /** The operation under way on the disk's node (null when none): a disk not ready without one will not be. */
  nodeBusy: string | null;
}

/**
 * A disk of the account whose node the caller may read (a restricted user needs a grant on the
 * node), or undefined. Kept apart from the nodes group's own repository so images can read disks
 * without reaching into it.
 */
export async function findDiskForImage(
  db: Kysely<Database>,
  scope: AccountScope,
  diskId: number,
): Promise<DiskForImage | undefined> {
  let q = db
    .selectFrom('disks')
    .innerJoin('nodes', 'nodes.id', 'disks.node_id')
    .select([
      'disks.id as id',
      'disks.label as label',
      'disks.size as size',
      'disks.status as status',
      'disks.filesystem as filesystem',
      'disks.image as image',
      'nodes.id as nodeId',
      'nodes.label as nodeLabel',
      'nodes.region as nodeRegion',
      'nodes.busy as nodeBusy',
    ])
    .where('disks.id', '=', diskId)
    .where('disks.account_id', '=', scope.accountId)
    .where('nodes.account_id', '=', scope.accountId);
  q = q.where(grantedTo(scope, 'node', 'nodes.id'));
  return q.executeTakeFirst();
}
