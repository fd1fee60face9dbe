// The graph as a picture: nodes in columns by their distance from the sources, left to
// right; audio connections solid, MIDI dashed; a compensating delay labelled on the input
// it feeds; a subgraph node opens to show its own graph.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 120, HEIGHT = 36, GAP_X = 44, GAP_Y = 8;

function element(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

const nodeOf = (end) => end.slice(0, end.lastIndexOf("."));

// Columns by longest path from a node nothing feeds; cycles cannot occur (the graph refuses them).
function layout(graph) {
  const edges = [...graph.connections, ...graph.midi].map((c) => [nodeOf(c.from), nodeOf(c.to)]);
  const column = new Map(graph.nodes.map((n) => [n.name, 0]));
  for (let pass = 0; pass < graph.nodes.length; pass++) {
    let moved = false;
    for (const [from, to] of edges) {
      if (column.has(from) && column.has(to) && column.get(to) < column.get(from) + 1) {
        column.set(to, column.get(from) + 1);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const rows = new Map();
  const place = new Map();
  for (const node of graph.nodes) {
    const x = column.get(node.name);
    const y = rows.get(x) ?? 0;
    rows.set(x, y + 1);
    place.set(node.name, { x: 8 + x * (WIDTH + GAP_X), y: 8 + y * (HEIGHT + GAP_Y) });
  }
  const width = 16 + (Math.max(0, ...column.values()) + 1) * (WIDTH + GAP_X);
  const height = 16 + Math.max(1, ...rows.values()) * (HEIGHT + GAP_Y);
  return { place, width, height };
}

export function drawGraph(container, graph, { onSelect, levels }) {
  container.replaceChildren();
  const { place, width, height } = layout(graph);
  const svg = element("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "the session's graph" }, container);
  const defs = element("defs", {}, svg);
  const marker = element("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 8, refY: 4, markerWidth: 6, markerHeight: 6, orient: "auto" }, defs);
  element("path", { d: "M0,0 L8,4 L0,8 z", class: "arrowhead" }, marker);
  const byName = new Map(graph.nodes.map((n) => [n.name, n]));

  const link = (connection, midi) => {
    const from = place.get(nodeOf(connection.from)), to = place.get(nodeOf(connection.to));
    if (!from || !to) return;
    const x1 = from.x + WIDTH, y1 = from.y + HEIGHT / 2, x2 = to.x, y2 = to.y + HEIGHT / 2;
    const bend = Math.max(24, (x2 - x1) / 2);
    element("path", {
      d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
      class: midi ? "edge midi" : "edge audio", "marker-end": "url(#arrow)",
      "data-from": connection.from, "data-to": connection.to,
    }, svg);
    const target = byName.get(nodeOf(connection.to));
    const bus = Number(connection.to.slice(connection.to.lastIndexOf(".") + 1));
    const delay = !midi && target?.inputs?.[bus]?.delay;
    if (delay) {
      const label = element("text", { x: x2 - 6, y: y2 - 6, class: "delay", "text-anchor": "end", "data-delay": connection.to }, svg);
      label.textContent = `+${delay} fr`;
    }
  };
  for (const connection of graph.connections) link(connection, false);
  for (const connection of graph.midi) link(connection, true);

  for (const node of graph.nodes) {
    const { x, y } = place.get(node.name);
    const group = element("g", { class: `node ${node.graph ? "subgraph" : ""} ${node.bypass ? "bypassed" : ""}`, "data-node": node.path, tabindex: 0 }, svg);
    element("rect", { x, y, width: WIDTH, height: HEIGHT, rx: 6 }, group);
    const title = element("text", { x: x + 8, y: y + 15, class: "name" }, group);
    title.textContent = node.name + (node.graph ? " ▸" : "");
    const unit = element("text", { x: x + 8, y: y + 28, class: "unit" }, group);
    // A plugin by its name, a built-in unit by its short name.
    const what = node.unit.startsWith("lv2:") ? node.unitName.replace(/ \(.*\)$/, "") : node.unit;
    unit.textContent = what.length > 18 ? what.slice(0, 17) + "…" : what;
    element("title", {}, group).textContent = `${node.path}: ${node.unitName}`;
    // A level bar for each output bus, side by side along the node's foot.
    const buses = node.outputs.length, gap = buses > 1 ? 1 : 0, span = (WIDTH - 4 - gap * (buses - 1)) / buses;
    node.outputs.forEach((_, bus) => {
      const left = x + 2 + bus * (span + gap), name = `${node.path}.${bus}`;
      if (buses > 1) element("rect", { x: left, y: y + HEIGHT - 5, width: span, height: 3, class: "level-track" }, group);
      const bar = element("rect", { x: left, y: y + HEIGHT - 5, width: 0, height: 3, class: "level", "data-level": name }, group);
      element("title", {}, bar).textContent = name;
      levels.set(name, { bar, width: span });
    });
    const choose = () => onSelect(node);
    group.addEventListener("click", choose);
    group.addEventListener("keydown", (event) => { if (event.key === "Enter") choose(); });
  }
}

// A bar's width for a level in dBFS: -60 dB and below is empty, 0 dB full.
export function levelFraction(db) {
  return Math.max(0, Math.min(1, (db + 60) / 60));
}
