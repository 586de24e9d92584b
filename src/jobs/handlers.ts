import { imageJobs } from '../domain/images/image.jobs.ts';
import { backupJobs, backupOperations } from '../domain/nodes/backup.jobs.ts';
import { cloneOperation } from '../domain/nodes/clone.jobs.ts';
import { diskOperations } from '../domain/nodes/disk.jobs.ts';
import { holdNode, nodeOperations } from '../domain/nodes/node.jobs.ts';
import { nodeChangeOperations } from '../domain/nodes/node-change.jobs.ts';
import { tokenJobs } from '../domain/profile/token.jobs.ts';
import type { JobHandler } from './handler.ts';
import { operationJobs } from './operation.ts';

/** Every job kind the worker knows, gathered from the resource groups. */
export const JOB_HANDLERS: readonly JobHandler[] = [
  ...tokenJobs,
  ...imageJobs,
  ...operationJobs(nodeOperations, holdNode),
  ...operationJobs(diskOperations, holdNode),
  ...operationJobs(backupOperations, holdNode),
  ...operationJobs([cloneOperation], holdNode),
  ...operationJobs(nodeChangeOperations, holdNode),
  ...backupJobs,
];
