import { permissionOf } from '../../db/grant-scope.ts';
import { lockRows } from '../../db/row-locks.ts';
import type { EntityKind } from '../account/entity-access.ts';
import { findStackScriptEntities, findVisibleStackScript, type VisibleStackScriptRow } from './stackscript.repository.ts';

/** Public scripts of other accounts are seen by all and changed only by their own account. */
export const stackScriptKind: EntityKind<VisibleStackScriptRow> = {
  type: 'stackscript',
  lock: (db, id) => lockRows(db, 'stackscripts', 'id', [id]),
  async find(db, scope, id) {
    const row = await findVisibleStackScript(db, scope, id);
    if (!row) return undefined;
    if (row.account_id !== scope.accountId) {
      return { row, permission: 'read_only', refusal: 'Unauthorized: only the account that owns a StackScript may change it' };
    }
    return { row, permission: await permissionOf(db, scope, 'stackscript', id) };
  },
  entities: (db, accountId, ids) => findStackScriptEntities(db, accountId, ids),
};
