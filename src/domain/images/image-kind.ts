import { permissionOf } from '../../db/grant-scope.ts';
import { lockRows } from '../../db/row-locks.ts';
import type { EntityKind } from '../account/entity-access.ts';
import { findImageEntities, findVisibleImageByNum, type ImageRow } from './image.repository.ts';

/** Images are granted by number (their API id is `private/<num>`); public ones are seen by all and changed by none. */
export const imageKind: EntityKind<ImageRow> = {
  type: 'image',
  lock: (db, num) => lockRows(db, 'images', 'num', [num]),
  async find(db, scope, num) {
    const row = await findVisibleImageByNum(db, scope, num);
    if (!row) return undefined;
    if (row.account_id === null)
      return { row, permission: 'read_only', refusal: 'Unauthorized: public images cannot be changed or deleted' };
    return { row, permission: await permissionOf(db, scope, 'image', num) };
  },
  entities: (db, accountId, ids) => findImageEntities(db, accountId, ids),
};
