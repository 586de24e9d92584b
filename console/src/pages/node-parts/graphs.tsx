import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api } from '../../api.ts';
import { useEvery, useLoad } from '../../hooks.ts';
import { LoadError } from '../../ui.tsx';
import type { NodeStats, Points } from './types.ts';

/** How often the graphs are read again: the figures are five-minute averages. */
const REFRESH_MS = 60_000;
const HEIGHT = 220;

/** The series' colours: the page's own variables, which follow dark mode. */
const COLOURS = ['--accent', '--danger', '--good-fg', '--busy-fg'];

interface Line {
  label: string;
  points: Points;
}
interface Graph {
  title: string;
  unit: string;
  /** A value as the legend shows it, with its unit. */
  format: (value: number) => string;
  /** A value on the vertical axis, whose label names the unit. */
  tick: (value: number) => string;
  lines: Line[];
}

function scaled(value: number, units: string[], step: number): string {
  let i = 0;
  let v = value;
  while (Math.abs(v) >= step && i < units.length - 1) {
    v /= step;
    i += 1;
  }
  return `${v >= 100 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}
const bits = (v: number) => scaled(v, ['b/s', 'kb/s', 'Mb/s', 'Gb/s'], 1000);
const number = (v: number) => (v >= 100 || Number.isInteger(v) ? String(Math.round(v)) : v.toFixed(1));
const blocks = (v: number) => `${number(v)} blocks/s`;
const percent = (v: number) => `${number(v)} %`;
const metric = (v: number) => scaled(v, ['', 'k', 'M', 'G'], 1000).trim();

function graphsOf({ data: s }: NodeStats): Graph[] {
  const traffic = (t: NodeStats['data']['netv4']) => [
    { label: 'Public in', points: t.in },
    { label: 'Public out', points: t.out },
    { label: 'Private in', points: t.private_in },
    { label: 'Private out', points: t.private_out },
  ];
  return [
    { title: 'CPU', unit: 'CPU (%)', format: percent, tick: number, lines: [{ label: 'CPU', points: s.cpu }] },
    { title: 'Network, IPv4', unit: 'bits/s', format: bits, tick: metric, lines: traffic(s.netv4) },
    { title: 'Network, IPv6', unit: 'bits/s', format: bits, tick: metric, lines: traffic(s.netv6) },
    {
      title: 'Disk IO',
      unit: 'blocks/s',
      format: blocks,
      tick: number,
      lines: [
        { label: 'Disk IO', points: s.io.io },
        { label: 'Swap IO', points: s.io.swap },
      ],
    },
  ];
}

/** The lines' points on one time axis (seconds, as uPlot takes it). */
function aligned(lines: Line[]): uPlot.AlignedData {
  const times = [...new Set(lines.flatMap((l) => l.points.map((p) => p[0] ?? 0)))].sort((a, b) => a - b);
  const columns = lines.map((l) => {
    const at = new Map(l.points.map((p) => [p[0], p[1] ?? null]));
    return times.map((t) => at.get(t) ?? null);
  });
  return [times.map((t) => t / 1000), ...columns];
}

/** Whether the system asks for dark mode: the graphs take their colours again when it changes. */
function useScheme(): string {
  const query = '(prefers-color-scheme: dark)';
  const [scheme, setScheme] = useState(() => (matchMedia(query).matches ? 'dark' : 'light'));
  useEffect(() => {
    const list = matchMedia(query);
    const changed = () => setScheme(list.matches ? 'dark' : 'light');
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, []);
  return scheme;
}

function Chart({ graph, scheme }: { graph: Graph; scheme: string }) {
  const box = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: drawn again with new figures and when the colours change
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const css = getComputedStyle(element);
    const colour = (name: string) => css.getPropertyValue(name).trim();
    const axis = {
      stroke: colour('--muted'),
      grid: { stroke: colour('--line'), width: 1 },
      ticks: { stroke: colour('--line'), width: 1 },
    };
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: HEIGHT,
        scales: { x: { time: true } },
        axes: [
          { ...axis, label: 'Time' },
          { ...axis, label: graph.unit, size: 60, values: (_u, splits) => splits.map(graph.tick) },
        ],
        series: [
          { label: 'Time' },
          ...graph.lines.map((line, i) => ({
            label: line.label,
            stroke: colour(COLOURS[i % COLOURS.length] ?? '--accent'),
            width: 2,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : graph.format(v)),
          })),
        ],
      },
      aligned(graph.lines),
      element,
    );
    const canvas = chart.root.querySelector('canvas');
    canvas?.setAttribute('role', 'img');
    canvas?.setAttribute('aria-label', `${graph.title}: ${graph.lines.map((l) => l.label).join(', ')}, the past day`);
    const resized = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 280), height: HEIGHT }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      chart.destroy();
    };
  }, [graph, scheme]);
  return (
    <figure className="graph">
      <figcaption>{graph.title}</figcaption>
      <div ref={box} className="graph-box" />
    </figure>
  );
}

/** The node's past day: CPU, network (IPv4 and IPv6) and disk IO, read again every minute while shown. */
export default function NodeGraphs({ id }: { id: number }) {
  const stats = useLoad(() => api.get<NodeStats>(`/node/instances/${id}/stats`), [id]);
  useEvery(REFRESH_MS, stats.reload);
  const scheme = useScheme();
  const graphs = useMemo(() => (stats.data ? graphsOf(stats.data) : undefined), [stats.data]);
  if (stats.error && !stats.data) return <LoadError error={stats.error} retry={stats.reload} />;
  if (!graphs) return <p className="muted">Loading…</p>;
  if (graphs.every((g) => g.lines.every((l) => l.points.length === 0)))
    return (
      <p className="muted graphs-empty">
        No figures yet: the first five-minute averages show once the node has run for five minutes.
      </p>
    );
  return (
    <div className="graphs">
      {graphs.map((g) => (
        <Chart key={g.title} graph={g} scheme={scheme} />
      ))}
    </div>
  );
}
