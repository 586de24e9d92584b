import type { FastifyPluginAsync } from 'fastify';
import { accountRoutes } from './domain/account/account.routes.ts';
import { userRoutes } from './domain/account/user.routes.ts';
import { domainRoutes } from './domain/domains/domain.routes.ts';
import { recordRoutes } from './domain/domains/record.routes.ts';
import { eventRoutes } from './domain/events/event.routes.ts';
import { firewallRoutes } from './domain/firewalls/firewall.routes.ts';
import { firewallDeviceRoutes } from './domain/firewalls/firewall-device.routes.ts';
import { imageRoutes } from './domain/images/image.routes.ts';
import { imageDataRoutes } from './domain/images/image-data.routes.ts';
import { IMAGE_DATA_PATH } from './domain/images/image-upload.service.ts';
import { kernelRoutes } from './domain/kernels/kernel.routes.ts';
import { contactRoutes } from './domain/managed/contacts/contact.routes.ts';
import { credentialRoutes } from './domain/managed/credentials/credential.routes.ts';
import { issueRoutes } from './domain/managed/issues/issue.routes.ts';
import { nodeSettingsRoutes } from './domain/managed/node-settings/node-settings.routes.ts';
import { serviceRoutes } from './domain/managed/services/service.routes.ts';
import { managedStatsRoutes } from './domain/managed/stats/managed-stats.routes.ts';
import { networkingRoutes } from './domain/networking/networking.routes.ts';
import { nodeIpRoutes } from './domain/networking/node-ip.routes.ts';
import { nodeTypeRoutes } from './domain/node-types/node-type.routes.ts';
import { backupRoutes } from './domain/nodes/backups/backup.routes.ts';
import { cloneRoutes } from './domain/nodes/clones/clone.routes.ts';
import { configRoutes } from './domain/nodes/configs/config.routes.ts';
import { nodeConsoleRoutes } from './domain/nodes/console/console.routes.ts';
import { diskRoutes } from './domain/nodes/disks/disk.routes.ts';
import { nodeChangeRoutes } from './domain/nodes/lifecycle/node-change.routes.ts';
import { nodeLifecycleRoutes } from './domain/nodes/lifecycle/node-lifecycle.routes.ts';
import { nodeRoutes } from './domain/nodes/node.routes.ts';
import { nodeStatsRoutes } from './domain/nodes/stats/node-stats.routes.ts';
import { oauthAppRoutes } from './domain/oauth/oauth-app.routes.ts';
import { oauthClientRoutes } from './domain/oauth/oauth-client.routes.ts';
import { profileRoutes } from './domain/profile/profile.routes.ts';
import { sshKeyRoutes } from './domain/profile/ssh-key.routes.ts';
import { tokenRoutes } from './domain/profile/token.routes.ts';
import { regionRoutes } from './domain/regions/region.routes.ts';
import { stackScriptRoutes } from './domain/stackscripts/stackscript.routes.ts';
import { tagRoutes } from './domain/tags/tag.routes.ts';

/** Every v4 resource group; mounted under /v4. */
export const v4Routes: FastifyPluginAsync = async (app) => {
  await app.register(regionRoutes);
  await app.register(nodeTypeRoutes);
  await app.register(kernelRoutes);
  await app.register(imageRoutes);
  await app.register(eventRoutes);
  await app.register(profileRoutes);
  await app.register(tokenRoutes);
  await app.register(sshKeyRoutes);
  await app.register(accountRoutes);
  await app.register(oauthClientRoutes);
  await app.register(oauthAppRoutes);
  await app.register(userRoutes);
  await app.register(stackScriptRoutes);
  await app.register(nodeRoutes);
  await app.register(nodeLifecycleRoutes);
  await app.register(configRoutes);
  await app.register(diskRoutes);
  await app.register(nodeIpRoutes);
  await app.register(networkingRoutes);
  await app.register(firewallRoutes);
  await app.register(firewallDeviceRoutes);
  await app.register(backupRoutes);
  await app.register(cloneRoutes);
  await app.register(nodeChangeRoutes);
  await app.register(nodeStatsRoutes);
  await app.register(nodeConsoleRoutes);
  await app.register(domainRoutes);
  await app.register(recordRoutes);
  await app.register(credentialRoutes);
  await app.register(contactRoutes);
  await app.register(nodeSettingsRoutes);
  await app.register(managedStatsRoutes);
  await app.register(serviceRoutes);
  await app.register(issueRoutes);
  await app.register(tagRoutes);
};

/** Where the data transfer URLs live: the segment after one is its own credential, which the request log redacts. */
export const CREDENTIAL_PATHS: readonly string[] = [IMAGE_DATA_PATH];

/** Routes outside /v4 and its document: the data transfer URLs under CREDENTIAL_PATHS. */
export const dataRoutes: FastifyPluginAsync = async (app) => {
  await app.register(imageDataRoutes);
};
