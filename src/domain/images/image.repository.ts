import type { Expression, ExpressionBuilder, Insertable, Kysely, Selectable, SqlBool, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedTo } from '../../db/grant-scope.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import { preparedRead } from '../../db/prepared.ts';
import type { AccountScope } from '../account/principal.ts';
import type { ImageTable } from './image.table.ts';

export type ImageRow = Selectable<ImageTable>;

/**
 * Private images sort before the public catalog (whose sorts are 0, 1, ...), in creation order (the
 * `num` tiebreak), as the live service lists them: clients take a list's first image as their newest own.
 */
export const PRIVATE_IMAGE_SORT = -1;

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'images.label', type: 'string' },
    deprecated: { column: 'images.deprecated', type: 'boolean' },
    is_public: { column: 'images.is_public', type: 'boolean' },
    size: { column: 'images.size', type: 'integer' },
    type: { column: 'images.type', type: 'string' },
    vendor: { column: 'images.vendor', type: 'string' },
    created: { column: 'images.created', type: 'datetime' },
    updated: { column: 'images.updated', type: 'datetime' },
  },
  defaultOrder: { column: 'images.sort', direction: 'asc' },
  tiebreak: 'images.num',
};

/** The account's private images; a restricted user sees only those it holds a grant on. */
function ownedBy(eb: ExpressionBuilder<Database, 'images'>, scope: AccountScope): Expression<SqlBool> {
  const owned = eb('images.account_id', '=', scope.accountId);
  if (scope.restrictedUserId === null) return owned;
  return eb.and([owned, grantedTo(scope, 'image', 'images.num')]);
}

/** Public images for everyone (scope null: anonymous), plus the caller's private ones. */
function visibleImages(db: Kysely<Database>, scope: AccountScope | null) {
  return db
    .selectFrom('images')
    .selectAll('images')
    .where((eb) =>
      scope ? eb.or([eb('images.account_id', 'is', null), ownedBy(eb, scope)]) : eb('images.account_id', 'is', null),
    );
}

export function listVisibleImages(db: Kysely<Database>, scope: AccountScope | null, request: PageRequest) {
  return paginate(visibleImages(db, scope), request, FILTER);
}

const visibleImage = preparedRead((db, args: { accountId: number; userId: number; id: string }, shape) =>
  visibleImages(
    db,
    shape === 'anonymous' ? null : { accountId: args.accountId, restrictedUserId: shape === 'restricted' ? args.userId : null },
  ).where('images.id', '=', args.id),
);

/** An image the scope may see (anonymous: public ones only), in one statement built once. */
export async function findVisibleImage(
  db: Kysely<Database>,
  scope: AccountScope | null,
  id: string,
): Promise<ImageRow | undefined> {
  const shape = scope === null ? 'anonymous' : scope.restrictedUserId === null ? 'unrestricted' : 'restricted';
  const [row] = await visibleImage(db, shape, { accountId: scope?.accountId ?? 0, userId: scope?.restrictedUserId ?? 0, id });
  return row;
}

/** The account's private images as grant entities (their API id is `private/<num>`): all, or those among `ids`. */
export async function findImageEntities(
  db: Kysely<Database>,
  accountId: number,
  ids?: readonly number[],
): Promise<{ id: number; label: string }[]> {
  if (ids?.length === 0) return [];
  let q = db.selectFrom('images').select(['num as id', 'label']).where('account_id', '=', accountId).orderBy('num');
  if (ids) q = q.where('num', 'in', [...ids]);
  return q.execute();
}

/** An image the scope may see (public, or the account's as its grants allow), by its number. */
export function findVisibleImageByNum(db: Kysely<Database>, scope: AccountScope, num: number): Promise<ImageRow | undefined> {
  return visibleImages(db, scope).where('images.num', '=', num).executeTakeFirst();
}

/** A private image by its number, whoever owns it (jobs). */
export function findImageByNum(db: Kysely<Database>, num: number): Promise<ImageRow | undefined> {
  return db.selectFrom('images').selectAll().where('num', '=', num).where('account_id', 'is not', null).executeTakeFirst();
}

/** A private image by id, whoever owns it (deploys, after the API has checked access). */
export function findPrivateImage(db: Kysely<Database>, id: string): Promise<ImageRow | undefined> {
  return db.selectFrom('images').selectAll().where('id', '=', id).where('account_id', 'is not', null).executeTakeFirst();
}

/** A private image of the account by id, ignoring user grants (what a disk was deployed from). */
export function findImageOfAccount(db: Kysely<Database>, accountId: number, id: string): Promise<ImageRow | undefined> {
  return db.selectFrom('images').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export type NewPrivateImage = Omit<Insertable<ImageTable>, 'id' | 'num' | 'sort' | 'is_public' | 'deprecated' | 'eol'> & {
  account_id: number;
};

/** Inserts a private image; its id, `private/<num>`, comes from the number the database assigns. */
export async function insertPrivateImage(db: Kysely<Database>, values: NewPrivateImage, placeholder: string): Promise<ImageRow> {
  const { num } = await db
    .insertInto('images')
    .values({ ...values, id: placeholder, is_public: 0, deprecated: 0, eol: null, sort: PRIVATE_IMAGE_SORT })
    .returning('num')
    .executeTakeFirstOrThrow();
  return db
    .updateTable('images')
    .set({ id: `private/${num}` })
    .where('num', '=', num)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateImageRow(
  db: Kysely<Database>,
  num: number,
  changes: Updateable<ImageTable>,
  onlyInStatus?: string,
): Promise<ImageRow | undefined> {
  let q = db.updateTable('images').set(changes).where('num', '=', num).where('account_id', 'is not', null);
  if (onlyInStatus !== undefined) q = q.where('status', '=', onlyInStatus);
  return q.returningAll().executeTakeFirst();
}

/** Removes a private image with its pending upload, if any. */
export async function deleteImageRow(db: Kysely<Database>, num: number, id: string): Promise<void> {
  await db.deleteFrom('image_uploads').where('image_id', '=', id).execute();
  await db.deleteFrom('images').where('num', '=', num).where('account_id', 'is not', null).execute();
}

/** Automatic images whose expiry has passed. */
export function findExpiredAutomaticImages(db: Kysely<Database>, now: string): Promise<ImageRow[]> {
  return db
    .selectFrom('images')
    .selectAll()
    .where('type', '=', 'automatic')
    .where('account_id', 'is not', null)
    .where('expiry', '<=', now)
    .execute();
}
