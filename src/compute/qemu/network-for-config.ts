import type { Logger } from 'pino';
import { type Config, ConfigError } from '../../config.ts';
import { BridgeNetwork } from './bridge-network.ts';
import type { NetworkBackend } from './network-backend.ts';
import { UserNetwork } from './user-network.ts';

/** The network backend CUMULO_NODE_NETWORK names; bridge networking refuses to start without root. */
export function networkBackendFor(
  config: Pick<Config, 'nodeNetwork' | 'nodePorts' | 'nodeNetns' | 'nodeHostPorts' | 'nodeNat' | 'dataDir'>,
  log: Logger,
  uid = process.getuid?.(),
): NetworkBackend {
  if (config.nodeNetwork === 'user') return new UserNetwork({ ports: config.nodePorts });
  if (uid !== 0)
    throw new ConfigError(
      `CUMULO_NODE_NETWORK=bridge needs root (it makes the network namespace ${config.nodeNetns}, bridges, taps and host routes), and this process runs as uid ${uid}: run it as root, or set CUMULO_NODE_NETWORK=user`,
    );
  return new BridgeNetwork({
    netns: config.nodeNetns,
    log,
    owner: config.dataDir,
    hostPorts: config.nodeHostPorts,
    nat: config.nodeNat === 'on',
  });
}
