import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One run of the search bench at one index size (what the growth table and plot show). */
export interface GrowthPoint {
  entities: number;
  at: string;
  node: string;
  /** `uptime`'s 1-minute load average when the run ended (the machine is shared). */
  load: number;
  seed_per_second: number | null;
  table_mb: number;
  indexes_mb: number;
  repeated_p95: { page1: number; page40: number };
  first_p95: { page1: number; page40: number };
}

/** The latency goals of issue 37 (as issue 25 set them; ms, p95) the plot draws as dashed lines. */
const GOALS = [{ label: 'repeated &lt; 25', ms: 25 }, { label: 'first page 1 &lt; 30', ms: 30 }, { label: 'first page 40 &lt; 50', ms: 50 }];

/**
 * Adds a run to the JSON record at `file` (the latest run per size replaces the one before) and
 * writes the plot next to it (`.svg`): p95 ms of the four search workloads against the number of
 * entities (log scale), the goals dashed. Hand-written SVG, no dependency.
 */
export function recordGrowth(file: string, point: GrowthPoint): GrowthPoint[] {
  const points: GrowthPoint[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
  const rest = points.filter((p) => p.entities !== point.entities);
  const all = [...rest, point].sort((a, b) => a.entities - b.entities);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  writeFileSync(file.replace(/\.json$/, '.svg'), growthSvg(all));
  return all;
}

/** The markdown table of the runs. */
export function growthTable(points: GrowthPoint[]): string {
  const rows = points.map((p) => `| ${p.entities.toLocaleString('en-US')} | ${p.repeated_p95.page1} | ${p.repeated_p95.page40} | ${p.first_p95.page1} | ${p.first_p95.page40} | ${p.seed_per_second?.toLocaleString('en-US') ?? '-'} | ${p.table_mb} | ${p.indexes_mb} | ${p.load} | ${p.at} ${p.node} |`);
  return ['| entities | repeated p1 p95 ms | repeated p40 p95 ms | first p1 p95 ms | first p40 p95 ms | seed /s | table MB | indexes MB | load (1 min) | run |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

export function growthSvg(points: GrowthPoint[]): string {
  const [w, h, left, right, top, bottom] = [720, 420, 60, 190, 30, 50];
  const xs = points.map((p) => Math.log10(p.entities));
  const [x0, x1] = [Math.min(...xs, 5) - 0.1, Math.max(...xs, 7) + 0.1];
  const series = [
    { label: 'repeated, page 1', color: '#1f77b4', value: (p: GrowthPoint) => p.repeated_p95.page1 },
    { label: 'repeated, page 40', color: '#17becf', value: (p: GrowthPoint) => p.repeated_p95.page40 },
    { label: 'first-time, page 1', color: '#d62728', value: (p: GrowthPoint) => p.first_p95.page1 },
    { label: 'first-time, page 40', color: '#ff7f0e', value: (p: GrowthPoint) => p.first_p95.page40 },
  ];
  const yMax = Math.max(60, ...points.flatMap((p) => series.map((s) => s.value(p)))) * 1.1;
  const x = (v: number) => left + ((v - x0) / (x1 - x0)) * (w - left - right);
  const y = (ms: number) => h - bottom - (ms / yMax) * (h - top - bottom);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${w}" height="${h}" fill="white"/>`);
  parts.push(`<text x="${left}" y="18" font-size="14">GET /search p95 (ms) against entities in the index (npm run bench -- search)</text>`);
  parts.push(`<line x1="${left}" y1="${h - bottom}" x2="${w - right}" y2="${h - bottom}" stroke="black"/><line x1="${left}" y1="${top}" x2="${left}" y2="${h - bottom}" stroke="black"/>`);
  for (const e of [1e5, 3e5, 1e6, 3e6, 1e7, 3e7].filter((e) => Math.log10(e) >= x0 && Math.log10(e) <= x1)) {
    parts.push(`<line x1="${x(Math.log10(e)).toFixed(1)}" y1="${h - bottom}" x2="${x(Math.log10(e)).toFixed(1)}" y2="${h - bottom + 5}" stroke="black"/>`);
    parts.push(`<text x="${x(Math.log10(e)).toFixed(1)}" y="${h - bottom + 18}" text-anchor="middle">${e >= 1e6 ? `${e / 1e6}M` : `${e / 1e3}k`}</text>`);
  }
  const step = yMax > 400 ? 100 : yMax > 150 ? 50 : 10;
  for (let ms = 0; ms <= yMax; ms += step) {
    parts.push(`<line x1="${left - 5}" y1="${y(ms).toFixed(1)}" x2="${left}" y2="${y(ms).toFixed(1)}" stroke="black"/><text x="${left - 8}" y="${(y(ms) + 4).toFixed(1)}" text-anchor="end">${ms}</text>`);
  }
  for (const goal of GOALS) {
    parts.push(`<line x1="${left}" y1="${y(goal.ms).toFixed(1)}" x2="${w - right}" y2="${y(goal.ms).toFixed(1)}" stroke="#888" stroke-dasharray="4 4"/>`);
    parts.push(`<text x="${w - right + 4}" y="${(y(goal.ms) + 4).toFixed(1)}" fill="#888">${goal.label}</text>`);
  }
  series.forEach((s, i) => {
    const pts = points.map((p) => `${x(Math.log10(p.entities)).toFixed(1)},${y(s.value(p)).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.join(' ')}"/>`);
    for (const pt of pts) parts.push(`<circle cx="${pt.split(',')[0]}" cy="${pt.split(',')[1]}" r="3" fill="${s.color}"/>`);
    parts.push(`<rect x="${w - right + 4}" y="${top + 100 + i * 18}" width="12" height="3" fill="${s.color}"/><text x="${w - right + 20}" y="${top + 105 + i * 18}">${s.label}</text>`);
  });
  parts.push(`<text x="${(left + w - right) / 2}" y="${h - 12}" text-anchor="middle">entities (log scale); load averages noted in docs/benchmarks.md</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
