import type autocannon from 'autocannon';
import { ROOT_PASS, type SeedResult } from './shape.ts';

/** The requests the benchmark sends, as autocannon takes them. */

export interface Case {
  name: 'view' | 'list' | 'unauthorized' | 'create';
  /** What it requests, for the report. */
  label: string;
  /** The status every answer should have. */
  status: number;
  headers: Record<string, string>;
  requests(): autocannon.Request[];
}

let createRun = 0;

export function cases(seed: SeedResult, listFilter: string): Case[] {
  const [viewer, creator] = seed.accounts;
  if (!viewer || !creator) throw new Error('the seed made fewer than two accounts');
  const ids = viewer.nodeIds;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const rotatingView = () => {
    let i = 0;
    return [
      {
        method: 'GET' as const,
        setupRequest(req: autocannon.Request) {
          i += 1;
          return { ...req, path: `/v4/node/instances/${ids[i % ids.length]}` };
        },
      },
    ];
  };
  return [
    {
      name: 'view',
      label: 'GET /v4/node/instances/:id',
      status: 200,
      headers: auth(viewer.token),
      requests: rotatingView,
    },
    {
      name: 'list',
      label: `GET /v4/node/instances?page_size=100, X-Filter ${listFilter}`,
      status: 200,
      headers: { ...auth(viewer.token), 'x-filter': listFilter },
      requests: () => [{ method: 'GET', path: '/v4/node/instances?page_size=100' }],
    },
    {
      name: 'unauthorized',
      label: 'GET /v4/node/instances/:id without a token (401)',
      status: 401,
      headers: {},
      requests: rotatingView,
    },
    {
      name: 'create',
      label: 'POST /v4/node/instances from an image',
      status: 200,
      headers: { ...auth(creator.token), 'content-type': 'application/json' },
      requests() {
        createRun += 1;
        const run = createRun;
        let n = 0;
        const regions = seed.regions;
        return [
          {
            method: 'POST',
            path: '/v4/node/instances',
            setupRequest(req) {
              n += 1;
              const body = {
                region: regions[n % regions.length],
                type: 'g6-nanode-1',
                image: 'node/debian12',
                root_pass: ROOT_PASS,
                label: `load${process.pid}r${run}n${n}`,
                tags: ['bench'],
              };
              return { ...req, body: JSON.stringify(body) };
            },
          },
        ];
      },
    },
  ];
}
