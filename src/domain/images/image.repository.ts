import { type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import type { ImageTable } from './image.table.ts';

export type ImageRow = Selectable<ImageTable>;

/** Private images sort after the public catalog, in creation order (the `num` tiebreak). */
export const PRIVATE_IMAGE_SORT = 1_000_000;

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'images.label', type: 'string' },
    deprecated: { column: 'images.deprecated', type: 'boolean' },
    is_public: { column: 'images.is_public', type: 'boolean' },
    size: { column: 'images.size', type: 'integer' },
    type: { column: 'images.type', type: 'string' },
    vendor: { column: 'images.vendor', type: 'string' },
  },
  defaultOrder: { column: 'images.sort', direction: 'asc' },
  tiebreak: 'images.num',
};

/** The account's private images; a restricted user sees only those it holds a grant on. */
function ownedBy(eb: ExpressionBuilder<Database, 'images'>, scope: AccountScope): Expression<SqlBool> {
  const owned = eb('images.account_id', '=', scope.accountId);
  if (scope.restrictedUserId === null) return owned;
  const granted = eb.exists(
    eb
      .selectFrom('entity_grants')
      .select(sql`1`.as('one'))
      .where('entity_grants.account_id', '=', scope.accountId)
      .where('entity_grants.user_id', '=', scope.restrictedUserId)
      .where('entity_grants.entity_type', '=', 'image')
      .whereRef('entity_grants.entity_id', '=', 'images.num'),
  );
  return eb.and([owned, granted]);
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

export function findVisibleImage(db: Kysely<Database>, scope: AccountScope | null, id: string): Promise<ImageRow | undefined> {
  return visibleImages(db, scope).where('images.id', '=', id).executeTakeFirst();
}

/** One of the account's own private images, as writes (update, delete) need it. */
export function findAccountImage(db: Kysely<Database>, scope: AccountScope, id: string): Promise<ImageRow | undefined> {
  return db
    .selectFrom('images')
    .selectAll('images')
    .where((eb) => ownedBy(eb, scope))
    .where('images.id', '=', id)
    .executeTakeFirst();
}
