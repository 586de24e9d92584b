import { lazy } from 'react';
import { getAll } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { useNodeEvents } from './node-events.ts';
import { AddressesPart } from './node-parts/addresses.tsx';
import { BackupsPart } from './node-parts/backups.tsx';
import { ConfigsPart } from './node-parts/configs.tsx';
import { ConsolePart } from './node-parts/console-part.tsx';
import { DisksPart } from './node-parts/disks.tsx';
import type { Disk, NodeInfo } from './node-parts/types.ts';
import './node-parts.css';
import { LazyPart } from '../lazy-part.tsx';

// uPlot is loaded with the node page's graphs, not with the first page.
const NodeGraphs = lazy(() => import('./node-parts/graphs.tsx'));

/**
 * The node's disks and its configs, from one read of the disks: a config's devices offer the disks
 * the disks part shows, a disk just deleted among them no longer.
 */
function DisksAndConfigs({ node, reloadNode }: { node: NodeInfo; reloadNode: () => void }) {
  const disks = useLoad(() => getAll<Disk>(`/node/instances/${node.id}/disks`), [node.id]);
  useNodeEvents(disks.reload, [node.id]);
  return (
    <>
      <DisksPart node={node} disks={disks} />
      <ConfigsPart node={node} nodeDisks={disks} reloadNode={reloadNode} />
    </>
  );
}

/**
 * What a node has: addresses and firewalls, disks, configs, backups, its graphs and its console. The
 * node is the page's own read of it, so the parts and the page's heading never disagree on its status.
 */
export function NodeParts({ node, reloadNode }: { node: NodeInfo; reloadNode: () => void }) {
  return (
    <div className="node-parts">
      <AddressesPart node={node} />
      <DisksAndConfigs node={node} reloadNode={reloadNode} />
      <BackupsPart node={node} reloadNode={reloadNode} />
      <section aria-labelledby="graphs-title">
        <h2 id="graphs-title">Graphs</h2>
        <LazyPart what="graphs">
          <NodeGraphs id={node.id} />
        </LazyPart>
      </section>
      <ConsolePart node={node} />
    </div>
  );
}
