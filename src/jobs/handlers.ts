import { tokenJobs } from '../domain/profile/token.jobs.ts';
import type { JobHandler } from './handler.ts';

/** Every job kind the worker knows, gathered from the resource groups. */
export const JOB_HANDLERS: readonly JobHandler[] = [...tokenJobs];
