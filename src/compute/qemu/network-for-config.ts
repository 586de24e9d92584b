import type { Config } from '../../config.ts';
import type { NetworkBackend } from './network-backend.ts';
import { UserNetwork } from './user-network.ts';

/** The network backend CUMULO_NODE_NETWORK names. */
export function networkBackendFor(config: Pick<Config, 'nodeNetwork' | 'nodePorts'>): NetworkBackend {
  if (config.nodeNetwork === 'user') return new UserNetwork({ ports: config.nodePorts });
  throw new Error('bridge networking is not built yet: set CUMULO_NODE_NETWORK=user');
}
