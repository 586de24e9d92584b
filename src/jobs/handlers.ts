import { imageJobs } from '../domain/images/image.jobs.ts';
import { backupJobs, backupOperations } from '../domain/nodes/backup.jobs.ts';
import { cloneOperation } from '../domain/nodes/clone.jobs.ts';
import { diskOperations } from '../domain/nodes/disk.jobs.ts';
import { nodeOperations } from '../domain/nodes/node.jobs.ts';
import { nodeChangeOperations } from '../domain/nodes/node-change.jobs.ts';
import { tokenJobs } from '../domain/profile/token.jobs.ts';
import type { JobHandler } from './handler.ts';
import { operationJobs } from './operation.ts';

/** Every job kind the worker knows, gathered from the resource groups. */
export const JOB_HANDLERS: readonly JobHandler[] = [
  ...tokenJobs,
  ...imageJobs,
  ...operationJobs(nodeOperations),
  ...operationJobs(diskOperations),
  ...operationJobs(backupOperations),
  ...operationJobs([cloneOperation]),
  ...operationJobs(nodeChangeOperations),
  ...backupJobs,
];
