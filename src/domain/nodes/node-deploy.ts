import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { ApiError, type ErrorItem, fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import { getUser } from '../account/user.service.ts';
import { type DeployableImage, findDeployableImage } from '../images/image-deploy.ts';
import { sshKeyProblem } from '../profile/ssh-public-key.ts';
import { checkStackScriptDeploy, recordStackScriptDeployment } from '../stackscripts/stackscript-deploy.ts';
import { hashRootPass } from './root-pass.ts';

/** The request fields that deploy an image onto a disk (node create and disk create share them). */
export interface DeployFields {
  image?: string | null | undefined;
  root_pass?: string | undefined;
  authorized_keys?: readonly string[] | undefined;
  authorized_users?: readonly string[] | undefined;
  stackscript_id?: number | null | undefined;
  stackscript_data?: Record<string, unknown> | null | undefined;
}

/** A checked deployment: the image, the root password's hash and the StackScript to run, if any. */
export interface Deployment {
  image: DeployableImage;
  rootPassHash: string;
  stackscriptId: number | null;
}

/** Public keys must be OpenSSH keys; each user named must be in the account with a key on its profile. */
async function checkAccessKeys(ctx: Context, accountId: number, fields: DeployFields): Promise<void> {
  const problems: ErrorItem[] = [];
  (fields.authorized_keys ?? []).forEach((key, i) => {
    const problem = sshKeyProblem(key);
    if (problem) problems.push({ field: `authorized_keys[${i}]`, reason: problem });
  });
  for (const [i, username] of (fields.authorized_users ?? []).entries()) {
    try {
      const user = await getUser(ctx, accountId, username);
      if (user.ssh_keys.length === 0) {
        problems.push({ field: `authorized_users[${i}]`, reason: `User ${username} has no SSH key on their profile` });
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
      problems.push({ field: `authorized_users[${i}]`, reason: `No user named ${username} in this account` });
    }
  }
  if (problems.length) throw fail.invalid(problems);
}

/**
 * Checks a deployment before anything is written: the image may be deployed by the caller, a root
 * password comes with it, the StackScript (if any) fits the image and its data, the access keys are
 * valid. Null when the request names neither an image nor a StackScript (root_pass is then unused).
 */
export async function checkDeployment(
  db: Kysely<Database>,
  ctx: Context,
  scope: AccountScope,
  fields: DeployFields,
): Promise<Deployment | null> {
  await checkAccessKeys(ctx, scope.accountId, fields);
  const imageId = fields.image ?? null;
  const stackscriptId = fields.stackscript_id ?? null;
  if (imageId === null && stackscriptId === null) return null;
  if (stackscriptId !== null) {
    await checkStackScriptDeploy(db, ctx, scope, { stackscriptId, image: imageId, data: fields.stackscript_data ?? undefined });
  }
  const image = await findDeployableImage(db, ctx, scope, imageId ?? '');
  if (fields.root_pass === undefined) throw fail.badRequest('root_pass is required when deploying an image', 'root_pass');
  return { image, rootPassHash: hashRootPass(ctx, fields.root_pass), stackscriptId };
}

/** What a deployment writes beside the disk: the StackScript's deployment count. Same transaction. */
export async function recordDeployment(db: Kysely<Database>, deployment: Deployment): Promise<void> {
  if (deployment.stackscriptId !== null) await recordStackScriptDeployment(db, deployment.stackscriptId);
}
