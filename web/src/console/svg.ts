// SVG through DOM APIs (publishing.md "Console" rule 2: no chart library):
// the daily bar charts of the analytics and the traces' span waterfall.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number> = {},
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

/** A bar per `[label, value]`, titled `title` (each bar's tooltip gives its value). */
export function barChart(title: string, points: [string, number][], format: (v: number) => string): SVGSVGElement {
  const width = 640;
  const height = 180;
  const top = 24;
  const bottom = 20;
  const highest = Math.max(0, ...points.map(([, v]) => v));
  const max = highest > 0 ? highest : 1;
  const scale = highest > 0 ? `most ${format(highest)}` : "none yet";
  const step = width / Math.max(1, points.length);
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}, ${scale}`, class: "chart" },
    svg("title", {}, title),
    svg("text", { x: 0, y: 14, class: "chart-title" }, `${title} (${scale})`),
    svg("line", { x1: 0, y1: height - bottom, x2: width, y2: height - bottom, class: "axis" }),
  );
  points.forEach(([label, value], i) => {
    const barHeight = ((height - top - bottom) * value) / max;
    chart.append(
      svg(
        "rect",
        { x: i * step + 1, y: height - bottom - barHeight, width: Math.max(1, step - 2), height: barHeight, class: "bar" },
        svg("title", {}, `${label}: ${format(value)}`),
      ),
    );
  });
  const first = points[0]?.[0];
  const last = points[points.length - 1]?.[0];
  if (first) chart.append(svg("text", { x: 0, y: height - 4, class: "tick" }, first));
  if (last) chart.append(svg("text", { x: width, y: height - 4, class: "tick", "text-anchor": "end" }, last));
  return chart;
}

/** One bar of a waterfall: a label and where it lies in [0, 1] of the whole. */
export interface Lane {
  label: string;
  start: number;
  length: number;
  error: boolean;
  tooltip: string;
}

/** A span waterfall: one lane per span, offset and sized by its times. */
export function waterfall(title: string, lanes: Lane[]): SVGSVGElement {
  const width = 720;
  const labelWidth = 200;
  const row = 22;
  const height = row * lanes.length + 4;
  const room = width - labelWidth - 4;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, class: "waterfall" }, svg("title", {}, title));
  lanes.forEach((lane, i) => {
    const y = i * row + 2;
    chart.append(
      svg("text", { x: 0, y: y + 15, class: "tick" }, lane.label.slice(0, 28)),
      svg(
        "rect",
        {
          x: labelWidth + lane.start * room,
          y: y + 3,
          width: Math.max(2, lane.length * room),
          height: row - 8,
          class: lane.error ? "bar error" : "bar",
        },
        svg("title", {}, lane.tooltip),
      ),
    );
  });
  return chart;
}
