// Two small SVG charts, hand-rolled so the benches need no plotting dependency: a line chart
// (linear or log axes) and a grouped bar chart. Plain text in, a standalone SVG string out.

const WIDTH = 760;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 180, top: 40, bottom: 56 };
/** Colour-blind-safe (Okabe–Ito), one per series in order. */
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

export interface Series {
  name: string;
  points: Array<[number, number]>;
  dashed?: boolean;
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  logX?: boolean;
  logY?: boolean;
}

export interface BarChart {
  title: string;
  yLabel: string;
  /** One cluster per group label; every group lists the same bar names in the same order. */
  groups: Array<{ label: string; bars: Array<{ name: string; value: number }> }>;
  yMax?: number;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function frame(title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** Round-number ticks over [min, max]; powers of ten on a log axis. */
function ticks(min: number, max: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) out.push(10 ** e);
    return out;
  }
  const raw = (max - min) / 6 || 1;
  const step = [1, 2, 2.5, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const label = (v: number) => (Math.abs(v) >= 1e4 ? v.toExponential(0) : String(Number(v.toPrecision(4))));

function legend(names: Array<{ name: string; colour: string; dashed?: boolean }>): string[] {
  return names.flatMap(({ name, colour, dashed }, i) => {
    const y = MARGIN.top + 10 + i * 20;
    const x = WIDTH - MARGIN.right + 16;
    return [
      `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${colour}" stroke-width="3"${dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${x + 28}" y="${y + 4}">${escape(name)}</text>`,
    ];
  });
}

export function lineChart(chart: LineChart): string {
  const all = chart.series
    .flatMap((s) => s.points)
    .filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!chart.logX || x > 0) && (!chart.logY || y > 0));
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const [xMin, xMax] = chart.logX
    ? [10 ** Math.floor(Math.log10(Math.min(...xs))), 10 ** Math.ceil(Math.log10(Math.max(...xs)))]
    : [Math.min(0, ...xs), Math.max(...xs)];
  const [yMin, yMax] = chart.logY
    ? [10 ** Math.floor(Math.log10(Math.min(...ys))), 10 ** Math.ceil(Math.log10(Math.max(...ys)))]
    : [0, Math.max(...ys) * 1.05 || 1];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number) =>
    MARGIN.left + (chart.logX ? (Math.log10(x) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin)) : (x - xMin) / (xMax - xMin || 1)) * plotW;
  const sy = (y: number) =>
    MARGIN.top + plotH - (chart.logY ? (Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin)) : (y - yMin) / (yMax - yMin || 1)) * plotH;
  const body: string[] = [];
  for (const t of ticks(yMin, yMax, !!chart.logY)) {
    body.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${sy(t).toFixed(1)}" y2="${sy(t).toFixed(1)}" stroke="#ddd"/>`);
    body.push(`<text x="${MARGIN.left - 6}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end">${label(t)}</text>`);
  }
  for (const t of ticks(xMin, xMax, !!chart.logX)) {
    body.push(`<line y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" x1="${sx(t).toFixed(1)}" x2="${sx(t).toFixed(1)}" stroke="#eee"/>`);
    body.push(`<text x="${sx(t).toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${label(t)}</text>`);
  }
  body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  body.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">${escape(chart.xLabel)}</text>`);
  body.push(`<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`);
  chart.series.forEach((series, i) => {
    const points = series.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!chart.logX || x > 0) && (!chart.logY || y > 0));
    if (points.length === 0) return;
    const d = points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    const colour = COLOURS[i % COLOURS.length]!;
    body.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    if (points.length <= 30) for (const [x, y] of points) body.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${colour}"/>`);
  });
  body.push(...legend(chart.series.map((s, i) => ({ name: s.name, colour: COLOURS[i % COLOURS.length]!, dashed: s.dashed }))));
  return frame(chart.title, body);
}

export function barChart(chart: BarChart): string {
  const names = chart.groups[0]?.bars.map((b) => b.name) ?? [];
  const yMax = chart.yMax ?? Math.max(...chart.groups.flatMap((g) => g.bars.map((b) => b.value))) * 1.1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sy = (y: number) => MARGIN.top + plotH - (y / yMax) * plotH;
  const body: string[] = [];
  for (const t of ticks(0, yMax, false)) {
    body.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${sy(t).toFixed(1)}" y2="${sy(t).toFixed(1)}" stroke="#ddd"/>`);
    body.push(`<text x="${MARGIN.left - 6}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end">${label(t)}</text>`);
  }
  const groupW = plotW / Math.max(1, chart.groups.length);
  const barW = (groupW * 0.8) / Math.max(1, names.length);
  chart.groups.forEach((group, g) => {
    const x0 = MARGIN.left + g * groupW + groupW * 0.1;
    group.bars.forEach((bar, b) => {
      const x = x0 + b * barW;
      body.push(
        `<rect x="${x.toFixed(1)}" y="${sy(bar.value).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(MARGIN.top + plotH - sy(bar.value)).toFixed(1)}" fill="${COLOURS[b % COLOURS.length]}"><title>${escape(`${group.label} · ${bar.name}: ${bar.value.toFixed(3)}`)}</title></rect>`,
      );
    });
    body.push(`<text x="${(x0 + groupW * 0.4).toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${escape(group.label)}</text>`);
  });
  body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  body.push(`<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`);
  body.push(...legend(names.map((name, i) => ({ name, colour: COLOURS[i % COLOURS.length]! }))));
  return frame(chart.title, body);
}
