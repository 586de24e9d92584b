import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, LimitedPageQuery, PageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import { IpAddressSchema } from './ip-address.schema.ts';
import { assignIps } from './ip-assign.service.ts';
import { shareIps } from './ip-share.service.ts';
import { AddressParams, AllocateAccountIpBody, AssignIpsBody, ShareIpsBody } from './ips.schema.ts';
import { allocateIp, getIp, getIps, updateIp } from './ips.service.ts';
import { Ipv6PoolSchema, Ipv6RangeSchema } from './ipv6.schema.ts';
import { getPools, getRanges } from './ipv6.service.ts';
import { UpdateIpBody } from './node-ip.schema.ts';
import { VlanSchema } from './vlan.schema.ts';
import { getVlans } from './vlan.service.ts';

export const tags = ['Networking'];
const readIps = access('ips:read_only');
const writeIpsOfNodes = access(['ips:read_write', 'nodes:read_write']);

export const networkingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/networking/ips',
    {
      schema: {
        operationId: 'getIPs',
        tags,
        summary: "List the account's addresses, private ones excluded",
        querystring: PageQuery,
        response: { 200: Paginated(IpAddressSchema) },
      },
      config: { access: readIps },
    },
    async (request) => getIps(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.post(
    '/networking/ips',
    {
      schema: {
        operationId: 'allocateIP',
        tags,
        summary: 'Allocate an IPv4 address to a node',
        body: AllocateAccountIpBody,
        response: { 200: IpAddressSchema },
      },
      config: { access: writeIpsOfNodes },
    },
    async (request) => allocateIp(ctx, principalOf(request), request.body),
  );
  app.get(
    '/networking/ips/:address',
    {
      schema: {
        operationId: 'getIP',
        tags,
        summary: "View one of the account's addresses",
        params: AddressParams,
        response: { 200: IpAddressSchema },
      },
      config: { access: readIps },
    },
    async (request) => getIp(ctx, scopeOf(principalOf(request)), request.params.address),
  );
  app.put(
    '/networking/ips/:address',
    {
      schema: {
        operationId: 'updateIP',
        tags,
        summary: "Set an address's reverse DNS",
        params: AddressParams,
        body: UpdateIpBody,
        response: { 200: IpAddressSchema },
      },
      config: { access: access('ips:read_write') },
    },
    async (request) => updateIp(ctx, principalOf(request), request.params.address, request.body.rdns),
  );
  // The reference's paths, and the spellings of later revisions that today's clients call
  // (`/networking/ips/assign`, `/networking/ips/share`): the same operations, hidden from the document.
  for (const [prefix, hide] of [
    ['/networking/ipv4', false],
    ['/networking/ips', true],
  ] as const) {
    app.post(
      `${prefix}/assign`,
      {
        schema: {
          operationId: 'assignIPs',
          tags,
          summary: 'Move IPv4 addresses between nodes of one region, all or none',
          body: AssignIpsBody,
          response: { 200: Empty },
          ...(hide ? { hide } : {}),
        },
        config: { access: writeIpsOfNodes },
      },
      async (request) => {
        await assignIps(ctx, principalOf(request), request.body);
        return {};
      },
    );
    app.post(
      `${prefix}/share`,
      {
        schema: {
          operationId: 'shareIPs',
          tags,
          summary: 'Set the public IPv4 addresses a node may bring up besides their own nodes',
          body: ShareIpsBody,
          response: { 200: Empty },
          ...(hide ? { hide } : {}),
        },
        config: { access: writeIpsOfNodes },
      },
      async (request) => {
        await shareIps(ctx, principalOf(request), request.body);
        return {};
      },
    );
  }
  app.get(
    '/networking/ipv6/pools',
    {
      schema: {
        operationId: 'getIPv6Pools',
        tags,
        summary: "List the account's IPv6 pools",
        querystring: LimitedPageQuery,
        response: { 200: Paginated(Ipv6PoolSchema) },
      },
      config: { access: readIps },
    },
    async (request) => getPools(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.get(
    '/networking/ipv6/ranges',
    {
      schema: {
        operationId: 'getIPv6Ranges',
        tags,
        summary: "List the account's IPv6 ranges",
        querystring: LimitedPageQuery,
        response: { 200: Paginated(Ipv6RangeSchema) },
      },
      config: { access: readIps },
    },
    async (request) => getRanges(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.get(
    '/networking/vlans',
    {
      schema: {
        operationId: 'getVLANs',
        tags,
        summary: "List the account's VLANs with their attached nodes",
        querystring: LimitedPageQuery,
        response: { 200: Paginated(VlanSchema) },
      },
      config: { access: access('nodes:read_only') },
    },
    async (request) => getVlans(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
};
