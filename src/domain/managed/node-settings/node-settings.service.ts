import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../../db/paginate.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import type { AccountScope } from '../../account/principal.ts';
import { addressOfNode } from '../../networking/node-addresses.service.ts';
import type { NodeRow } from '../../nodes/node.repository.ts';
import { getNodes } from '../../nodes/node.service.ts';
import { nodeFor } from '../../nodes/node-access.ts';
import { findNodeSettings, type NodeSettingsRow, putNodeSettings } from './node-settings.repository.ts';
import { DEFAULT_SSH, type NodeSettings, type SshSettings, type UpdateNodeSettings } from './node-settings.schema.ts';

/* Every node of the account has managed settings: the defaults until they are changed. */

function sshOf(row: NodeSettingsRow | undefined): SshSettings {
  if (!row) return { ...DEFAULT_SSH };
  return { access: row.ssh_access === 1, user: row.ssh_user, ip: row.ssh_ip, port: row.ssh_port };
}

function settingsOf(node: { id: number; label: string; group: string }, row: NodeSettingsRow | undefined): NodeSettings {
  return { id: node.id, label: node.label, group: node.group, ssh: sshOf(row) };
}

/** One entry per node the caller may see, in the node list's order (X-Filter takes the node list's fields). */
export async function getNodeSettingsList(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<NodeSettings>> {
  const nodes = await getNodes(ctx, scope, request);
  const rows = await findNodeSettings(
    ctx.db,
    scope.accountId,
    nodes.data.map((n) => n.id),
  );
  return mapPage(nodes, (node) => settingsOf(node, rows.get(node.id)));
}

export async function getNodeSettings(ctx: Context, scope: AccountScope, nodeId: number): Promise<NodeSettings> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const rows = await findNodeSettings(ctx.db, node.account_id, [node.id]);
  return settingsOf({ id: node.id, label: node.label, group: node.node_group }, rows.get(node.id));
}

/** `any`, or one of the node's own addresses (asked of networking) in the form addresses are stored in. */
async function sshIp(db: Kysely<Database>, node: NodeRow, text: string): Promise<string> {
  if (text === 'any') return text;
  const address = await addressOfNode(db, { accountId: node.account_id, nodeId: node.id }, text);
  if (address === null) throw fail.badRequest(`Must be any, or one of the addresses of node ${node.id}`, 'ssh.ip');
  return address;
}

/** Changes the SSH fields the body names, under the node's lock. */
export async function updateNodeSettings(
  ctx: Context,
  scope: AccountScope,
  nodeId: number,
  body: UpdateNodeSettings,
): Promise<NodeSettings> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scope, nodeId, 'read_write');
    const current = sshOf((await findNodeSettings(trx, node.account_id, [node.id])).get(node.id));
    const asked = body.ssh ?? {};
    const ssh: SshSettings = {
      access: asked.access ?? current.access,
      user: asked.user ?? current.user,
      ip: asked.ip === undefined ? current.ip : await sshIp(trx, node, asked.ip),
      port: asked.port ?? current.port,
    };
    await putNodeSettings(trx, {
      node_id: node.id,
      account_id: node.account_id,
      ssh_access: ssh.access ? 1 : 0,
      ssh_user: ssh.user,
      ssh_ip: ssh.ip,
      ssh_port: ssh.port,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    return { id: node.id, label: node.label, group: node.node_group, ssh };
  });
}
