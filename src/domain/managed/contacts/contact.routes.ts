import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../../http/schemas.ts';
import { principalOf } from '../../account/route-access.ts';
import { readManaged, managedTags as tags, writeManaged } from '../managed-access.ts';
import { ContactBody, ContactParams, ContactSchema } from './contact.schema.ts';
import { createContact, deleteContact, getContact, getContacts, updateContact } from './contact.service.ts';

export const contactRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/managed/contacts',
    {
      schema: {
        operationId: 'getManagedContacts',
        tags,
        summary: 'List managed contacts',
        querystring: PageQuery,
        response: { 200: Paginated(ContactSchema) },
      },
      config: { access: readManaged },
    },
    async (request) => getContacts(ctx, principalOf(request).accountId, pageRequest(request)),
  );
  app.post(
    '/managed/contacts',
    {
      schema: {
        operationId: 'createManagedContact',
        tags,
        summary: 'Add a managed contact',
        body: ContactBody,
        response: { 200: ContactSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => createContact(ctx, principalOf(request).accountId, request.body),
  );
  // The reference asks for account:read_write to view a single contact.
  app.get(
    '/managed/contacts/:contactId',
    {
      schema: {
        operationId: 'getManagedContact',
        tags,
        summary: 'View a managed contact',
        params: ContactParams,
        response: { 200: ContactSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => getContact(ctx, principalOf(request).accountId, request.params.contactId),
  );
  app.put(
    '/managed/contacts/:contactId',
    {
      schema: {
        operationId: 'updateManagedContact',
        tags,
        summary: 'Update a managed contact',
        params: ContactParams,
        body: ContactBody,
        response: { 200: ContactSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => updateContact(ctx, principalOf(request).accountId, request.params.contactId, request.body),
  );
  app.delete(
    '/managed/contacts/:contactId',
    {
      schema: {
        operationId: 'deleteManagedContact',
        tags,
        summary: 'Delete a managed contact',
        params: ContactParams,
        response: { 200: Empty },
      },
      config: { access: writeManaged },
    },
    async (request) => {
      await deleteContact(ctx, principalOf(request).accountId, request.params.contactId);
      return {};
    },
  );
};
