import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { ApiError, type ErrorItem, fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import { getUserPublicKeys } from '../account/user.service.ts';
import { type DeployableImage, findDeployableImage } from '../images/image-deploy.ts';
import { normalizeSshKey, sshKeyProblem } from '../profile/ssh-public-key.ts';
import { checkStackScriptDeploy, recordStackScriptDeployment } from '../stackscripts/stackscript-deploy.ts';
import { guestPasswordHash, hashRootPass } from './root-pass.ts';

/** The request fields that deploy an image onto a disk (node create and disk create share them). */
export interface DeployFields {
  image?: string | null | undefined;
  root_pass?: string | undefined;
  authorized_keys?: readonly string[] | undefined;
  authorized_users?: readonly string[] | undefined;
  stackscript_id?: number | null | undefined;
  stackscript_data?: Record<string, unknown> | null | undefined;
}

/** What a deployment writes into the node's filesystem besides the root password (carried by the deploy job, not kept). */
export interface DeployAccess {
  /** The keys given and those of the users named, for root's authorized_keys. */
  authorizedKeys: string[];
  /** The StackScript to run once at first boot, with its user-defined fields as environment variables. */
  firstBoot: { script: string; env: Record<string, string> } | null;
  /** The root password as the guest's /etc/shadow holds it: only made when nodes really run. */
  rootPasswordCrypt: string | null;
}

/** A checked deployment: the image, the root password's hash, the StackScript to run, if any, and the keys. */
export interface Deployment {
  image: DeployableImage;
  rootPassHash: string;
  stackscriptId: number | null;
  access: DeployAccess;
}

/**
 * Public keys must be OpenSSH keys; each user named must be in the account with a key on its
 * profile. Returns the keys given followed by those users' keys.
 */
async function checkAccessKeys(ctx: Context, accountId: number, fields: DeployFields): Promise<string[]> {
  const problems: ErrorItem[] = [];
  const given = fields.authorized_keys ?? [];
  given.forEach((key, i) => {
    const problem = sshKeyProblem(key);
    if (problem) problems.push({ field: `authorized_keys[${i}]`, reason: problem });
  });
  const keys = given.map(normalizeSshKey);
  for (const [i, username] of (fields.authorized_users ?? []).entries()) {
    try {
      const userKeys = await getUserPublicKeys(ctx, accountId, username);
      if (userKeys.length === 0) {
        problems.push({ field: `authorized_users[${i}]`, reason: `User ${username} has no SSH key on their profile` });
      }
      keys.push(...userKeys);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
      problems.push({ field: `authorized_users[${i}]`, reason: `No user named ${username} in this account` });
    }
  }
  if (problems.length) throw fail.invalid(problems);
  return keys;
}

/** User-defined field values as the script's environment: every value as text. */
function scriptEnvironment(data: Record<string, unknown> | null | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(data ?? {})) {
    if (value !== null && value !== undefined) env[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return env;
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
  const authorizedKeys = await checkAccessKeys(ctx, scope.accountId, fields);
  const imageId = fields.image ?? null;
  const stackscriptId = fields.stackscript_id ?? null;
  if (imageId === null && stackscriptId === null) return null;
  let firstBoot: DeployAccess['firstBoot'] = null;
  if (stackscriptId !== null) {
    const data = fields.stackscript_data ?? undefined;
    const { script } = await checkStackScriptDeploy(db, ctx, scope, { stackscriptId, image: imageId, data });
    firstBoot = { script, env: scriptEnvironment(data) };
  }
  const image = await findDeployableImage(db, ctx, scope, imageId ?? '');
  if (fields.root_pass === undefined) throw fail.badRequest('root_pass is required when deploying an image', 'root_pass');
  const rootPasswordCrypt = ctx.compute === null ? null : guestPasswordHash(ctx, fields.root_pass);
  return {
    image,
    rootPassHash: hashRootPass(ctx, fields.root_pass),
    stackscriptId,
    access: { authorizedKeys, firstBoot, rootPasswordCrypt },
  };
}

/** What a deployment writes beside the disk: the StackScript's deployment count. Same transaction. */
export async function recordDeployment(db: Kysely<Database>, deployment: Deployment): Promise<void> {
  if (deployment.stackscriptId !== null) await recordStackScriptDeployment(db, deployment.stackscriptId);
}
