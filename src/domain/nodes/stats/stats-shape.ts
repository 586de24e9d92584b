import type { NodeStats } from './node-stats.schema.ts';
import type { Series } from './node-stats.ts';

/** The stats object of a node from its series' points, wrapped in `data` as the live service answers. */
export function statsShape(points: (series: Series) => [number, number][], title: string): NodeStats {
  return {
    title,
    data: {
      cpu: points('cpu'),
      io: { io: points('io'), swap: points('swap') },
      netv4: {
        in: points('v4_in'),
        out: points('v4_out'),
        private_in: points('v4_private_in'),
        private_out: points('v4_private_out'),
      },
      netv6: {
        in: points('v6_in'),
        out: points('v6_out'),
        private_in: points('v6_private_in'),
        private_out: points('v6_private_out'),
      },
    },
  };
}
