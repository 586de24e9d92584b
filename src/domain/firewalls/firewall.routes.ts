import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, LimitedPageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import {
  CreateFirewallBody,
  FirewallParams,
  FirewallSchema,
  RulesViewSchema,
  UpdateFirewallBody,
  UpdateRulesBody,
} from './firewall.schema.ts';
import {
  createFirewall,
  deleteFirewall,
  getFirewall,
  getFirewallRules,
  getFirewalls,
  updateFirewall,
  updateFirewallRules,
} from './firewall.service.ts';

export const tags = ['Networking'];
export const readFirewalls = access('firewall:read_only');
export const writeFirewalls = access('firewall:read_write');

export const firewallRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/networking/firewalls',
    {
      schema: {
        operationId: 'getFirewalls',
        tags,
        summary: 'List firewalls',
        querystring: LimitedPageQuery,
        response: { 200: Paginated(FirewallSchema) },
      },
      config: { access: readFirewalls },
    },
    async (request) => getFirewalls(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.post(
    '/networking/firewalls',
    {
      schema: {
        operationId: 'createFirewalls',
        tags,
        summary: 'Create a firewall',
        body: CreateFirewallBody,
        response: { 200: FirewallSchema },
      },
      config: { access: access('firewall:read_write', 'add_firewalls') },
    },
    async (request) => createFirewall(ctx, principalOf(request), request.body),
  );
  app.get(
    '/networking/firewalls/:firewallId',
    {
      schema: {
        operationId: 'getFirewall',
        tags,
        summary: 'View a firewall',
        params: FirewallParams,
        response: { 200: FirewallSchema },
      },
      config: { access: readFirewalls },
    },
    async (request) => getFirewall(ctx, scopeOf(principalOf(request)), request.params.firewallId),
  );
  app.put(
    '/networking/firewalls/:firewallId',
    {
      schema: {
        operationId: 'updateFirewall',
        tags,
        summary: 'Update a firewall',
        params: FirewallParams,
        body: UpdateFirewallBody,
        response: { 200: FirewallSchema },
      },
      config: { access: writeFirewalls },
    },
    async (request) => updateFirewall(ctx, principalOf(request), request.params.firewallId, request.body),
  );
  app.delete(
    '/networking/firewalls/:firewallId',
    {
      schema: {
        operationId: 'deleteFirewall',
        tags,
        summary: 'Delete a firewall',
        params: FirewallParams,
        response: { 200: Empty },
      },
      config: { access: writeFirewalls },
    },
    async (request) => {
      await deleteFirewall(ctx, principalOf(request), request.params.firewallId);
      return {};
    },
  );
  app.get(
    '/networking/firewalls/:firewallId/rules',
    {
      schema: {
        operationId: 'getFirewallRules',
        tags,
        summary: "View a firewall's rules",
        params: FirewallParams,
        response: { 200: RulesViewSchema },
      },
      config: { access: readFirewalls },
    },
    async (request) => getFirewallRules(ctx, scopeOf(principalOf(request)), request.params.firewallId),
  );
  app.put(
    '/networking/firewalls/:firewallId/rules',
    {
      schema: {
        operationId: 'updateFirewallRules',
        tags,
        summary: "Replace a firewall's rules",
        params: FirewallParams,
        body: UpdateRulesBody,
        response: { 200: RulesViewSchema },
      },
      config: { access: writeFirewalls },
    },
    async (request) => updateFirewallRules(ctx, principalOf(request), request.params.firewallId, request.body),
  );
};
