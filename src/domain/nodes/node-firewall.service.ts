import type { Context } from '../../context.ts';
import { compileFilter, type FilterSpec } from '../../db/filter.ts';
import type { PageRequest } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import { nodeFor } from './node-access.ts';

/** The firewall fields the service description marks Filterable. */
const FIREWALL_FILTER: FilterSpec = {
  fields: {
    id: { column: 'id', type: 'integer' },
    label: { column: 'label', type: 'string' },
    tags: { column: 'tags', type: 'string', sortable: false },
  },
  tiebreak: 'id',
};

/**
 * The firewalls assigned to a node: none until the firewalls group lands and fills this from its
 * devices. The filter is checked as any list checks it, so a bad one is a 400 already.
 */
export async function getNodeFirewalls(ctx: Context, scope: AccountScope, nodeId: number, request: PageRequest) {
  await nodeFor(ctx.db, scope, nodeId, 'read_only');
  compileFilter(request.filter, FIREWALL_FILTER);
  return { data: [], page: request.page, pages: 1, results: 0 };
}
