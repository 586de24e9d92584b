import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../../db/paginate.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import {
  type ContactRow,
  deleteContactRow,
  findContact,
  insertContact,
  listContacts,
  updateContactRow,
} from './contact.repository.ts';
import type { Contact, ContactInput } from './contact.schema.ts';

/*
 * Managed contacts: the people to reach about an issue. The reference lists no event for them, and
 * they hang off nothing else (a service's consultation_group names a group of them as free text).
 */

export function contactRowToContact(row: ContactRow): Contact {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: { primary: row.phone_primary, secondary: row.phone_secondary },
    group: row.contact_group,
    updated: row.updated,
  };
}

async function contactFor(db: Kysely<Database>, accountId: number, id: number): Promise<ContactRow> {
  const row = await findContact(db, accountId, id);
  if (!row) throw fail.notFound();
  return row;
}

export async function getContacts(ctx: Context, accountId: number, request: PageRequest): Promise<Page<Contact>> {
  return mapPage(await listContacts(ctx.db, accountId, request), contactRowToContact);
}

export async function getContact(ctx: Context, accountId: number, id: number): Promise<Contact> {
  return contactRowToContact(await contactFor(ctx.db, accountId, id));
}

/** A new contact; what the body leaves out is null. */
export async function createContact(ctx: Context, accountId: number, body: ContactInput): Promise<Contact> {
  const now = toTimestamp(ctx.clock.nowMs());
  const row = await insertContact(ctx.db, {
    account_id: accountId,
    name: body.name ?? null,
    email: body.email ?? null,
    phone_primary: body.phone?.primary ?? null,
    phone_secondary: body.phone?.secondary ?? null,
    contact_group: body.group ?? null,
    created: now,
    updated: now,
  });
  return contactRowToContact(row);
}

/** Changes the fields the body names (within `phone`, the numbers it names), under the contact's lock. */
export async function updateContact(ctx: Context, accountId: number, id: number, body: ContactInput): Promise<Contact> {
  return inTransaction(ctx.db, async (trx) => {
    await contactFor(trx, accountId, id);
    const row = await updateContactRow(trx, accountId, id, {
      name: body.name,
      email: body.email,
      phone_primary: body.phone?.primary,
      phone_secondary: body.phone?.secondary,
      contact_group: body.group,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    return contactRowToContact(row);
  });
}

export async function deleteContact(ctx: Context, accountId: number, id: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    await contactFor(trx, accountId, id);
    await deleteContactRow(trx, accountId, id);
  });
}
