import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { grantToCreator, revokeEntityGrants } from '../account/grant-entities.ts';
import { assertUnderLimit } from '../account/limits.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { recordEvent } from '../events/event.service.ts';
import type { EventAction } from '../events/event-kinds.ts';
import { assertMayTag, removeTags, retag, setTags } from '../tags/tag.service.ts';
import {
  countFirewalls,
  deleteFirewallRow,
  type FirewallRow,
  firewallLabelTaken,
  insertFirewall,
  listFirewalls,
  updateFirewallRow,
} from './firewall.repository.ts';
import type { CreateFirewall, Firewall, Ruleset, RulesView, UpdateFirewall, UpdateRules } from './firewall.schema.ts';
import { firewallEntity, firewallFor } from './firewall-access.ts';
import { applyFirewallsLater } from './firewall-apply.jobs.ts';
import { findEnabledOnNodes, findNodeIdsOfFirewall } from './firewall-device.repository.ts';
import { assignToNodes } from './firewall-device.service.ts';
import { checkRules } from './firewall-rules.ts';
import { rulesOf, rulesView, toFirewall, toFirewalls } from './firewall-view.ts';

async function assertLabelFree(db: Kysely<Database>, accountId: number, label: string, exceptId?: number): Promise<void> {
  if (await firewallLabelTaken(db, accountId, label, exceptId)) {
    throw fail.badRequest(`Label must be unique among your firewalls: ${label} is taken`, 'label');
  }
}

export async function getFirewalls(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Firewall>> {
  const page = await listFirewalls(ctx.db, scope, request);
  return { ...page, data: await toFirewalls(ctx.db, scope.accountId, page.data) };
}

/** A firewall without its devices (they have their own list). */
export async function getFirewall(ctx: Context, scope: AccountScope, id: number): Promise<Firewall> {
  return toFirewall(ctx.db, await firewallFor(ctx.db, scope, id, 'read_only'));
}

/**
 * Creates an enabled firewall with its rules, tags and, when `devices.nodes` names any, its devices
 * (read_write on each node; one refused node refuses the whole request). Events firewall_create and
 * firewall_device_add for each node.
 */
export async function createFirewall(ctx: Context, principal: Principal, body: CreateFirewall): Promise<Firewall> {
  const scope = scopeOf(principal);
  checkRules(body.rules, 'rules');
  assertMayTag(principal, body.tags);
  const rules: Ruleset = {
    inbound: body.rules.inbound ?? [],
    outbound: body.rules.outbound ?? [],
    inbound_policy: body.rules.inbound_policy,
    outbound_policy: body.rules.outbound_policy,
  };
  return inTransaction(ctx.db, async (trx) => {
    await assertLabelFree(trx, scope.accountId, body.label);
    const limit = ctx.config.limitFirewalls;
    await assertUnderLimit(trx, {
      key: `firewalls of account ${scope.accountId}`,
      limit,
      count: () => countFirewalls(trx, scope.accountId),
      reason: `An account may have at most ${limit} firewalls`,
      field: 'label',
    });
    const now = toTimestamp(ctx.clock.nowMs());
    const row = await insertFirewall(trx, {
      account_id: scope.accountId,
      label: body.label,
      status: 'enabled',
      rules: JSON.stringify(rules),
      created: now,
      updated: now,
    });
    if (body.tags?.length)
      await setTags(trx, scope.accountId, 'firewall', row.id, body.tags, now, ctx.config.limitTags, { fresh: true });
    await grantToCreator(trx, scope, 'firewall', row.id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'firewall_create', entity: firewallEntity(row) });
    await assignToNodes(trx, ctx, principal, row, body.devices?.nodes ?? []);
    return toFirewall(trx, row);
  });
}

/**
 * Refuses to enable a firewall while another enabled one is assigned to one of its nodes. The nodes
 * are locked first, so two firewalls on one node enabled at once take turns and the second sees the first.
 */
async function assertAloneOnNodes(db: Kysely<Database>, row: FirewallRow): Promise<void> {
  const nodeIds = await findNodeIdsOfFirewall(db, row.account_id, row.id);
  await lockRows(db, 'nodes', 'id', nodeIds);
  const other = await findEnabledOnNodes(db, row.account_id, nodeIds, row.id);
  if (other) {
    throw fail.badRequest(
      `Node ${other.node_id} already has an enabled firewall (${other.label}); a node has one enabled firewall at a time`,
      'status',
    );
  }
}

/**
 * Changes label, tags and status. Events: firewall_update for label or tags, firewall_enable or
 * firewall_disable for the status.
 */
export async function updateFirewall(ctx: Context, principal: Principal, id: number, body: UpdateFirewall): Promise<Firewall> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await firewallFor(trx, scopeOf(principal), id, 'read_write');
    const now = toTimestamp(ctx.clock.nowMs());
    const actions: EventAction[] = [];
    if (
      body.tags !== undefined &&
      (await retag(trx, principal.restricted, row.account_id, 'firewall', row.id, body.tags, now, ctx.config.limitTags))
    ) {
      actions.push('firewall_update');
    }
    const label = body.label !== undefined && body.label !== row.label ? body.label : undefined;
    if (label !== undefined) {
      await assertLabelFree(trx, row.account_id, label, row.id);
      if (actions.length === 0) actions.push('firewall_update');
    }
    const status = body.status !== undefined && body.status !== row.status ? body.status : undefined;
    if (status === 'enabled') await assertAloneOnNodes(trx, row);
    if (status !== undefined) actions.push(status === 'enabled' ? 'firewall_enable' : 'firewall_disable');
    if (actions.length === 0) return toFirewall(trx, row);
    const updated = await updateFirewallRow(trx, row.account_id, row.id, { label, status, updated: now });
    if (status !== undefined)
      await applyFirewallsLater(trx, ctx, row.account_id, await findNodeIdsOfFirewall(trx, row.account_id, row.id));
    for (const action of actions) await recordEvent(trx, ctx, actorOf(principal), { action, entity: firewallEntity(updated) });
    return toFirewall(trx, updated);
  });
}

/** Deletes a firewall: later reads are 404 and its rules leave every node it was assigned to (its devices go with it). */
export async function deleteFirewall(ctx: Context, principal: Principal, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await firewallFor(trx, scopeOf(principal), id, 'read_write');
    await removeTags(trx, row.account_id, 'firewall', row.id);
    await revokeEntityGrants(trx, row.account_id, 'firewall', row.id);
    const nodeIds = await findNodeIdsOfFirewall(trx, row.account_id, row.id);
    await deleteFirewallRow(trx, row.account_id, row.id);
    await applyFirewallsLater(trx, ctx, row.account_id, nodeIds);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'firewall_delete', entity: firewallEntity(row) });
  });
}

export async function getFirewallRules(ctx: Context, scope: AccountScope, id: number): Promise<RulesView> {
  return rulesView(await firewallFor(ctx.db, scope, id, 'read_only'));
}

/** Replaces the whole ruleset with the one sent (a rule list left out is empty; a policy left out stays); event firewall_update. */
export async function updateFirewallRules(ctx: Context, principal: Principal, id: number, body: UpdateRules): Promise<RulesView> {
  checkRules(body, null);
  return inTransaction(ctx.db, async (trx) => {
    const row = await firewallFor(trx, scopeOf(principal), id, 'read_write');
    const current = rulesOf(row);
    const rules: Ruleset = {
      inbound: body.inbound ?? [],
      outbound: body.outbound ?? [],
      inbound_policy: body.inbound_policy ?? current.inbound_policy,
      outbound_policy: body.outbound_policy ?? current.outbound_policy,
    };
    const updated = await updateFirewallRow(trx, row.account_id, row.id, {
      rules: JSON.stringify(rules),
      rules_version: row.rules_version + 1,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    await applyFirewallsLater(trx, ctx, row.account_id, await findNodeIdsOfFirewall(trx, row.account_id, row.id));
    await recordEvent(trx, ctx, actorOf(principal), { action: 'firewall_update', entity: firewallEntity(updated) });
    return rulesView(updated);
  });
}
