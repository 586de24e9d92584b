import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import { decrementActiveDeployments, findVisibleStackScript, incrementDeployments } from './stackscript.repository.ts';
import { ANY_IMAGE } from './stackscript.schema.ts';
import { checkStackScriptData, type UserDefinedField } from './stackscript-udf.ts';

/**
 * What node creation checks before deploying a script: the script is one the caller may use (its
 * own or a public one; 400 on `stackscript_id` otherwise), `image` is one the script deploys to
 * (400 on `image`), and `data` fits the script's user-defined fields (400 on
 * `stackscript_data.<name>`, every problem at once). Whether the image itself may be deployed is
 * the images group's check. `db` may be a transaction. Returns the script to run.
 */
export async function checkStackScriptDeploy(
  db: Kysely<Database>,
  _ctx: Context,
  scope: AccountScope,
  spec: { stackscriptId: number; image: string | null; data: Record<string, unknown> | undefined },
): Promise<{ script: string }> {
  const row = await findVisibleStackScript(db, scope, spec.stackscriptId);
  if (!row)
    throw fail.badRequest(`StackScript ${spec.stackscriptId} does not exist or is not available to you`, 'stackscript_id');
  const images = JSON.parse(row.images) as string[];
  if (spec.image === null) {
    throw fail.badRequest(`Deploying a StackScript needs an image it supports: ${images.join(', ')}`, 'image');
  }
  if (!images.includes(ANY_IMAGE) && !images.includes(spec.image)) {
    throw fail.badRequest(
      `Image ${spec.image} is not one StackScript ${spec.stackscriptId} deploys to (${images.join(', ')})`,
      'image',
    );
  }
  const problems = checkStackScriptData(JSON.parse(row.user_defined_fields) as UserDefinedField[], spec.data);
  if (problems.length > 0) throw fail.invalid(problems);
  return { script: row.script };
}

/** A node was deployed from the script: one more deployment in total and one more active. */
export async function recordStackScriptDeployment(db: Kysely<Database>, stackscriptId: number): Promise<void> {
  await incrementDeployments(db, stackscriptId);
}

/** A node deployed from the script is deleted: one fewer active deployment (never below zero). */
export async function releaseStackScriptDeployment(db: Kysely<Database>, stackscriptId: number): Promise<void> {
  await decrementActiveDeployments(db, stackscriptId);
}
