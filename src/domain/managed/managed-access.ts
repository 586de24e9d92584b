import { access } from '../account/route-access.ts';

/** The API document's group for every managed operation. */
export const managedTags = ['Managed'];

/** Managed reads and writes: the account scope, and (as the reference marks them) unrestricted users only. */
export const readManaged = access('account:read_only', 'unrestricted');
export const writeManaged = access('account:read_write', 'unrestricted');
