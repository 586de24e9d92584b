import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { escapeLike, type FilterField } from '../../db/filter.ts';
import { fail } from '../../errors.ts';
import type { TaggedEntityType } from './tag.repository.ts';

/** An X-Filter field `tags` for a collection: equality means "carries this tag", +contains matches part of one. */
export function tagsFilterField(entityType: TaggedEntityType, idColumn: string): FilterField {
  return {
    column: idColumn,
    type: 'string',
    sortable: false,
    custom(op, value): RawBuilder<SqlBool> {
      const carries = (condition: RawBuilder<SqlBool>) =>
        sql<SqlBool>`exists (select 1 from entity_tags et where et.entity_type = ${entityType} and et.entity_id = ${sql.ref(idColumn)} and ${condition})`;
      if (op === 'eq') return carries(sql<SqlBool>`et.tag = ${value}`);
      if (op === 'neq') return sql<SqlBool>`not ${carries(sql<SqlBool>`et.tag = ${value}`)}`;
      if (op === 'contains') {
        const pattern = `%${escapeLike(String(value).toLowerCase())}%`;
        return carries(sql<SqlBool>`lower(et.tag) like ${pattern} escape '\\'`);
      }
      throw fail.badRequest('tags can be compared for equality, +neq or +contains only', 'X-Filter');
    },
  };
}
