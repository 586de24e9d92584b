import type { JobContext } from '../../../jobs/handler.ts';
import { findDiskHost, findNodeHost } from './node-host.repository.ts';

/**
 * The compute host whose agent does an operation's real work: its node's (payload `nodeId`), or for
 * an image capture the host of the disk's node (`diskId`); null without agents.
 */
export async function operationHost({ trx, payload }: JobContext): Promise<string | null> {
  if (payload.nodeId !== undefined) return findNodeHost(trx, Number(payload.nodeId));
  if (payload.diskId !== undefined) return findDiskHost(trx, Number(payload.diskId));
  return null;
}
