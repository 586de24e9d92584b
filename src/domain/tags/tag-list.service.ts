import type { Context } from '../../context.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import { taggedKinds } from '../entity-kinds.ts';
import { listTaggedEntities, listTags, type TaggedEntityType, tagVisible } from './tag.repository.ts';
import type { Tag, TaggedObject } from './tag.schema.ts';

/** The account's tags, by label: those made on their own and those made by tagging an object. */
export async function getTags(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Tag>> {
  return mapPage(await listTags(ctx.db, scope, request), (row) => ({ label: row.label }));
}

/**
 * The nodes and domains carrying the tag that the caller may see, by type and then id, each as its
 * own view shows it (firewalls carry tags too, but the reference lists no firewalls here).
 */
export async function getTaggedObjects(
  ctx: Context,
  scope: AccountScope,
  label: string,
  request: PageRequest,
): Promise<Page<TaggedObject>> {
  if (!(await tagVisible(ctx.db, scope, label))) throw fail.notFound();
  const page = await listTaggedEntities(
    ctx.db,
    scope,
    label,
    taggedKinds().map((k) => k.type as TaggedEntityType),
    request,
  );
  const views = new Map<string, Map<number, { id: number }>>();
  for (const kind of taggedKinds()) {
    const ids = page.data.filter((row) => row.entity_type === kind.type).map((row) => row.entity_id);
    const objects = ids.length ? await kind.tagging.view(ctx.db, ctx, scope.accountId, ids) : [];
    views.set(kind.type, new Map(objects.map((o) => [o.id, o])));
  }
  const data: TaggedObject[] = [];
  for (const row of page.data) {
    const object = views.get(row.entity_type)?.get(row.entity_id);
    // An object deleted between the two reads is left out.
    // Each kind's view is its own GET's answer (a node, a domain): what the schema's union holds.
    if (object) data.push({ type: row.entity_type, data: object as TaggedObject['data'] });
  }
  return { ...page, data };
}
