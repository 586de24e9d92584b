import { NodeCreate } from './nodes/create.tsx';
import { NodeDetail } from './nodes/detail.tsx';
import { NodesList } from './nodes/list.tsx';
import './nodes/nodes.css';

export type { Node } from './nodes/model.ts';
export { NodeCreate, NodeDetail, NodesList };

/**
 * The nodes section: `#/nodes`, `#/nodes/create` (with `?image=…&stackscript=…` to start from those;
 * an image id's slash splits the address, so only the first part is looked at), `#/nodes/<id>`.
 */
export function NodesSection({ path }: { path: string[] }) {
  const [first = ''] = path;
  if (first === 'create' || first.startsWith('create?')) return <NodeCreate />;
  // Keyed by the node: another node's page starts afresh, nothing of the last one's kept.
  return first ? <NodeDetail key={first} id={Number(first)} /> : <NodesList />;
}
