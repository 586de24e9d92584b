import type { Context } from '../../context.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import { vlanAttachments } from '../nodes/configs/config.service.ts';
import { findVlanNodes, listVlans } from './vlan.repository.ts';
import type { Vlan } from './vlan.schema.ts';

/** The account's VLANs with the nodes attached to them; a VLAN no node is attached to is not listed. */
export async function getVlans(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Vlan>> {
  const attachments = vlanAttachments(ctx.db, scope);
  const page = await listVlans(ctx.db, scope, attachments, request);
  const attached = await findVlanNodes(
    ctx.db,
    attachments,
    page.data.map((v) => v.label),
  );
  return mapPage(page, (row) => ({
    label: row.label,
    region: row.region,
    nodes: attached.filter((a) => a.region === row.region && a.label === row.label).map((a) => Number(a.node_id)),
    created: row.created,
  }));
}
