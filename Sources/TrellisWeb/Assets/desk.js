// The desk: the graph, a strip per mixer input, the selected node's controls, edits,
// time, players, recorders and health, all through the control protocol.

import { Session, quote } from "./protocol.js";
import { drawGraph, levelFraction } from "./graph.js";
import { make, control, throttled, faderToGain, gainToFader, dbText, FADER_MIN_DB, FADER_MAX_DB } from "./controls.js";

const session = new Session();
const $ = (id) => document.getElementById(id);
const state = { graph: null, selected: null, controls: new Map(), levels: new Map(), meters: new Map(), loudness: new Map(), takes: [] };
const PEAK_HOLD_MS = 1500;

function notify(text, kind = "error") {
  const item = make("li", { class: kind }, text);
  $("messages").prepend(item);
  while ($("messages").children.length > 50) $("messages").lastChild.remove();
}

// Runs a command; a refusal is shown as the dispatcher worded it.
async function run(command) {
  try {
    return await session.request(command);
  } catch (error) {
    notify(`${command.split(" ")[0]}: ${error.message}`);
    throw error;
  }
}

const setParameter = (node, parameter) => throttled((value) => run(`set ${quote(node)} ${quote(parameter)} ${Number(value.toPrecision(7))}`).catch(() => {}));

// MARK: - the model

async function refresh() {
  state.graph = await session.request("describe");
  drawGraph($("graph"), state.graph, { onSelect: select, levels: state.levels = new Map() });
  await buildStrips();
  buildEdits();
  buildPlayers();
  await buildRecorders();
  if (state.selected) {
    const again = state.graph.nodes.find((n) => n.path === state.selected);
    if (again) await select(again); else closeInspector();
  }
  await rewatch();
}

// Meters of every output bus and recorder come to every page from the desk's one feed
// (docs/web.md); this page watches the events.
async function rewatch() {
  await session.watch("events=meter,parameter,edit,graph,property,xrun,interruption,jack,warning,log,record,eof,transport,time time=0.25");
}

// MARK: - strips

function feeding(target) {
  return state.graph.connections.find((c) => c.to === target)?.from ?? null;
}

async function buildStrips() {
  const strips = $("strips");
  strips.replaceChildren();
  state.meters = new Map();
  state.loudness = new Map();
  for (const mixer of state.graph.nodes.filter((n) => n.kind === "mixer" && n.triple.startsWith("aumx:mcmx"))) {
    const parameters = await session.request(`params ${quote(mixer.path)}`);
    const byName = new Map(parameters.map((p) => [p.parameter, p]));
    mixer.inputs.forEach((_, index) => {
      const source = feeding(`${mixer.name}.${index}`);
      strips.append(strip(mixer, index, source, byName));
    });
    strips.append(masterStrip(mixer, byName));
  }
  $("desk-empty").hidden = strips.children.length > 0;
}

function meterElement(bus) {
  const meter = make("div", { class: "meter", "data-meter": bus, "data-peak": "-160", "data-rms": "-160" });
  const rms = make("div", { class: "rms" }), peak = make("div", { class: "peak" }), clip = make("div", { class: "clip" });
  const readout = make("span", { class: "meter-text" }, "-inf");
  meter.append(rms, peak, clip, readout);
  const entry = { meter, rms, peak, clip, readout, holdUntil: 0 };
  if (!state.meters.has(bus)) state.meters.set(bus, []);
  state.meters.get(bus).push(entry);
  return meter;
}

function fader(node, parameter, value) {
  const wrap = make("div", { class: "fader-wrap" });
  const input = make("input", { type: "range", class: "fader", min: FADER_MIN_DB, max: FADER_MAX_DB, step: 0.1, "data-node": node, "data-param": parameter, "aria-label": `${node} ${parameter}` });
  const readout = make("output", { class: "fader-db" });
  const send = setParameter(node, parameter);
  let held = false;
  const show = (gain) => {
    wrap.dataset.gain = gain;
    readout.textContent = `${dbText(gain <= 0 ? -160 : 20 * Math.log10(gain))} dB`;
    if (!held) input.value = gainToFader(gain);
  };
  input.addEventListener("input", () => {
    const gain = faderToGain(Number(input.value));
    readout.textContent = `${dbText(gain <= 0 ? -160 : 20 * Math.log10(gain))} dB`;
    send(gain);
  });
  input.addEventListener("pointerdown", () => (held = true));
  window.addEventListener("pointerup", () => (held = false));
  show(value);
  state.controls.set(`${node} ${parameter}`, show);
  wrap.append(input, readout);
  return wrap;
}

function strip(mixer, index, source, parameters) {
  const prefix = `in${index}.`;
  const element = make("section", { class: "strip", "data-strip": `${mixer.name}.in${index}` });
  const label = make("button", { class: "strip-name", type: "button" }, source ? source.slice(0, source.lastIndexOf(".")) : `in ${index}`);
  label.addEventListener("click", () => {
    const node = state.graph.nodes.find((n) => source && n.name === source.slice(0, source.lastIndexOf(".")));
    if (node) select(node);
  });
  element.append(label);
  const pan = parameters.get(prefix + "pan");
  if (pan) {
    const { element: panControl, show } = control(mixer.path, pan, setParameter(mixer.path, prefix + "pan"));
    panControl.classList.add("pan");
    state.controls.set(`${mixer.path} ${prefix}pan`, show);
    element.append(panControl);
  }
  const body = make("div", { class: "strip-body" });
  body.append(fader(mixer.path, prefix + "volume", parameters.get(prefix + "volume")?.value ?? 1));
  body.append(meterElement(source ?? `${mixer.name}.in${index}`));
  element.append(body);
  const mute = parameters.get(prefix + "mute");
  if (mute) {
    const button = make("button", { type: "button", class: "mute", "aria-pressed": String(mute.value >= 0.5), "data-node": mixer.path, "data-param": prefix + "mute" }, "M");
    button.addEventListener("click", () => run(`set ${quote(mixer.path)} ${prefix}mute ${button.getAttribute("aria-pressed") === "true" ? 0 : 1}`).catch(() => {}));
    state.controls.set(`${mixer.path} ${prefix}mute`, (value) => button.setAttribute("aria-pressed", String(value >= 0.5)));
    element.append(button);
  }
  return element;
}

function masterStrip(mixer, parameters) {
  const element = make("section", { class: "strip master", "data-strip": `${mixer.name}.out` });
  element.append(make("button", { class: "strip-name", type: "button" }, mixer.name));
  const body = make("div", { class: "strip-body" });
  body.append(fader(mixer.path, "volume", parameters.get("volume")?.value ?? 1));
  body.append(meterElement(`${mixer.name}.0`));
  element.append(body);
  element.append(loudnessPanel(`${mixer.name}.0`));
  return element;
}

// The master bus's EBU R128 loudness: momentary, short-term, integrated (LUFS), range
// (LU) and true peak (dBTP), measured by the session since the last reset.
const LOUDNESS_FIGURES = [["momentary", "M"], ["shortTerm", "S"], ["integrated", "I"], ["range", "LRA"], ["truePeak", "TP"]];

function loudnessPanel(bus) {
  const panel = make("div", { class: "loudness", "data-loudness": bus });
  const values = new Map();
  for (const [figure, label] of LOUDNESS_FIGURES) {
    const value = make("span", { class: "loudness-value", "data-figure": figure }, "-inf");
    panel.append(make("span", { class: "loudness-label" }, label), value);
    values.set(figure, value);
  }
  const reset = make("button", { type: "button", class: "loudness-reset", title: "start the loudness measurement over" }, "reset");
  reset.addEventListener("click", () => run(`meter ${quote(bus)} loudness reset`).catch(() => {}));
  panel.append(reset);
  state.loudness.set(bus, values);
  return panel;
}

function showLoudness(bus, loudness) {
  const values = state.loudness.get(bus);
  if (!values) return;
  for (const [figure] of LOUDNESS_FIGURES) {
    const value = loudness[figure];
    values.get(figure).textContent = value === null || value === undefined ? "-inf" : value.toFixed(1);
    values.get(figure).dataset.value = value === null || value === undefined ? "-inf" : String(value);
  }
}

function showMeter(bus, peaks, averages) {
  const peak = Math.max(...peaks), rms = Math.max(...averages);
  // When the first level reached the screen, in ms from the page's start (the benchmark reads it).
  if (window.firstLevelAt === undefined && peak > -160 && state.meters.has(bus)) window.firstLevelAt = performance.now();
  const level = state.levels.get(bus);
  if (level) level.bar.setAttribute("width", String(levelFraction(peak) * level.width));
  for (const entry of state.meters.get(bus) ?? []) {
    entry.meter.dataset.peak = peak.toFixed(2);
    entry.meter.dataset.rms = rms.toFixed(2);
    entry.rms.style.height = `${levelFraction(rms) * 100}%`;
    entry.peak.style.bottom = `${levelFraction(peak) * 100}%`;
    entry.readout.textContent = dbText(peak);
    const now = performance.now();
    if (peak >= -0.01) entry.holdUntil = now + PEAK_HOLD_MS;
    entry.meter.classList.toggle("clipped", now < entry.holdUntil);
  }
}

// MARK: - the inspector

function closeInspector() {
  state.selected = null;
  $("inspector").hidden = true;
}

async function select(node) {
  state.selected = node.path;
  for (const group of document.querySelectorAll("#graph g.node")) group.classList.toggle("selected", group.dataset.node === node.path);
  if (node.graph) {
    drawGraph($("subgraph"), node.graph, { onSelect: select, levels: new Map() });
    $("subgraph-box").hidden = false;
    $("subgraph-title").textContent = `inside ${node.path}`;
  }
  const inspector = $("inspector");
  inspector.hidden = false;
  $("inspector-title").textContent = `${node.path} — ${node.unitName}`;
  $("inspector-unit").textContent = `${node.unit} (${node.triple}), ${node.inputs.length} in, ${node.outputs.length} out${node.latency ? `, latency ${node.latency} frames` : ""}`;
  $("bypass").checked = node.bypass;
  const list = $("parameters");
  list.replaceChildren();
  const parameters = await session.request(`params ${quote(node.path)}`).catch(() => []);
  for (const parameter of parameters) {
    const { element, show } = control(node.path, parameter, setParameter(node.path, parameter.parameter));
    state.controls.set(`${node.path} ${parameter.parameter}`, show);
    list.append(element);
  }
  const presets = await session.request(`preset ${quote(node.path)}`).catch(() => []);
  const menu = $("presets");
  menu.replaceChildren(make("option", { value: "" }, presets.length ? "load a preset…" : "no presets"));
  for (const name of presets) menu.append(make("option", { value: name }, name));
}

// Read-only outputs (a limiter's gain reduction) are read ten times a second while shown.
setInterval(async () => {
  if (!state.selected || $("inspector").hidden || !session.socket || session.socket.readyState !== 1) return;
  const parameters = await session.request(`params ${quote(state.selected)}`).catch(() => null);
  for (const parameter of parameters ?? []) {
    if (parameter.hints.includes("output")) state.controls.get(`${state.selected} ${parameter.parameter}`)?.(parameter.value);
  }
}, 100);

// MARK: - edits

function busChoices(direction) {
  const choices = [];
  for (const node of state.graph.nodes) {
    const buses = direction === "out" ? node.outputs : node.inputs;
    buses.forEach((bus, index) => choices.push({ value: `${node.name}.${index}`, label: `${node.name}.${index} (${bus.channels} ch)` }));
    const midi = direction === "out" ? node.midiOutputs : node.midiInputs;
    for (let index = 0; index < midi; index++) choices.push({ value: `${node.name}.midi${index}`, label: `${node.name}.midi${index} (MIDI)` });
  }
  return choices;
}

function buildEdits() {
  for (const [id, direction] of [["connect-from", "out"], ["connect-to", "in"]]) {
    const menu = $(id);
    const kept = menu.value;
    menu.replaceChildren(...busChoices(direction).map((c) => make("option", { value: c.value }, c.label)));
    if (kept) menu.value = kept;
  }
  const list = $("connections");
  list.replaceChildren();
  for (const c of [...state.graph.connections, ...state.graph.midi]) {
    const item = make("li", {}, `${c.from} → ${c.to} `);
    const remove = make("button", { type: "button", class: "small", "aria-label": `disconnect ${c.from} ${c.to}` }, "✕");
    remove.addEventListener("click", () => run(`disconnect ${c.from} ${c.to}`).catch(() => {}));
    item.append(remove);
    list.append(item);
  }
}

async function searchUnits() {
  const text = $("unit-search").value.trim();
  const units = await run(`units ${quote(text || "")}`.trim()).catch(() => []);
  const menu = $("unit-choice");
  menu.replaceChildren(...units.slice(0, 200).map((u) => make("option", { value: u.name }, `${u.displayName} — ${u.name} (${u.kind})`)));
  $("unit-count").textContent = `${units.length} unit${units.length === 1 ? "" : "s"}`;
}

// MARK: - players and recorders

function buildPlayers() {
  const box = $("players");
  box.replaceChildren();
  for (const node of state.graph.nodes.filter((n) => n.player)) {
    const row = make("div", { class: "player", "data-player": node.name });
    const position = make("output", { class: "position" }, "0.000 s");
    for (const action of ["play", "pause", "stop"]) {
      const button = make("button", { type: "button" }, action);
      button.addEventListener("click", async () => {
        const reply = await run(`${action} ${quote(node.name)}`).catch(() => null);
        if (reply) position.textContent = typeof reply === "string" ? reply : JSON.stringify(reply);
      });
      row.append(button);
    }
    const seek = make("input", { type: "number", min: 0, step: 0.1, placeholder: "seek s", class: "seek" });
    seek.addEventListener("change", () => run(`seek ${quote(node.name)} ${Number(seek.value)}`).catch(() => {}));
    row.prepend(make("span", { class: "player-name" }, node.name));
    row.append(seek, position);
    box.append(row);
  }
  $("players-box").hidden = box.children.length === 0;
}

async function buildRecorders() {
  const box = $("recorders");
  box.replaceChildren();
  for (const recorder of state.graph.recorders) {
    const row = make("div", { class: "recorder", "data-recorder": recorder.name });
    row.append(make("span", { class: "recorder-name" }, `${recorder.name} ← ${recorder.bus}`));
    for (const action of ["start", "pause", "resume", "stop"]) {
      const button = make("button", { type: "button", "data-action": action }, action);
      button.addEventListener("click", async () => {
        await run(`record ${action} ${quote(recorder.name)}`).catch(() => {});
        await refreshTakes();
      });
      row.append(button);
    }
    row.append(make("output", { class: "recorder-state" }, recorder.state), meterElement(recorder.name));
    box.append(row);
  }
  $("recorders-box").hidden = state.graph.recorders.length === 0;
  await refreshTakes();
}

async function refreshTakes() {
  const takes = await session.request("takes").catch(() => []);
  const list = $("takes");
  list.replaceChildren();
  for (const take of takes) {
    const item = make("li", { "data-take": take.name });
    const link = make("a", { href: `/takes/${encodeURIComponent(take.name)}`, download: take.name }, take.name);
    item.append(link, ` ${(take.bytes / 1048576).toFixed(2)} MB${take.recording ? " (recording)" : ""}`);
    list.append(item);
  }
}

// MARK: - time and health

// `status peek` leaves the windows other clients read (DSP load, peaks) as they are; the
// load shown is the mean over this page's own window, from the cycles' running totals.
let lastLoad = null;
async function status() {
  const s = await session.request("status peek").catch(() => null);
  if (!s) return;
  if (s.dspBusyNanoseconds !== undefined) {
    if (lastLoad && s.dspPeriodNanoseconds > lastLoad.period) {
      const load = (s.dspBusyNanoseconds - lastLoad.busy) / (s.dspPeriodNanoseconds - lastLoad.period);
      $("dsp").textContent = `${(load * 100).toFixed(1)} %`;
    }
    lastLoad = { busy: s.dspBusyNanoseconds, period: s.dspPeriodNanoseconds };
  } else {
    $("dsp").textContent = "–";
  }
  $("xruns").textContent = s.xruns ?? "–";
  $("jack").textContent = s.jack ?? "offline";
  $("jack").dataset.state = s.jack ?? "offline";
  $("bars").textContent = s.bars;
  $("seconds").textContent = `${(s.transportFrame / s.sampleRate).toFixed(2)} s`;
  $("transport-state").textContent = s.transport;
  if (document.activeElement !== $("tempo")) $("tempo").value = s.tempo;
  $("silenced").textContent = s.silencedCycles ?? 0;
}

// MARK: - wiring

function wire() {
  $("undo").addEventListener("click", () => run("undo").catch(() => {}));
  $("redo").addEventListener("click", () => run("redo").catch(() => {}));
  $("save").addEventListener("click", async () => notify(`saved ${await run("save").catch(() => "nothing")}`, "note"));
  $("play").addEventListener("click", () => run("transport play").catch(() => {}));
  $("stop").addEventListener("click", () => run("transport stop").catch(() => {}));
  $("locate").addEventListener("change", () => run(`transport locate ${quote($("locate").value)}`).catch(() => {}));
  $("tempo").addEventListener("change", () => run(`transport tempo ${Number($("tempo").value)}`).catch(() => {}));
  $("bypass").addEventListener("change", () => run(`bypass ${quote(state.selected)} ${$("bypass").checked ? "on" : "off"}`).catch(() => {}));
  $("presets").addEventListener("change", () => $("presets").value && run(`preset ${quote(state.selected)} ${quote($("presets").value)}`).catch(() => {}));
  $("preset-save").addEventListener("click", () => {
    const name = $("preset-name").value.trim();
    if (name) run(`preset save ${quote(state.selected)} ${quote(name)}`).then(() => select(state.graph.nodes.find((n) => n.path === state.selected))).catch(() => {});
  });
  $("remove").addEventListener("click", () => run(`remove ${quote(state.selected)}`).then(closeInspector).catch(() => {}));
  $("close-inspector").addEventListener("click", closeInspector);
  $("unit-search").addEventListener("input", searchUnits);
  $("add").addEventListener("click", () => {
    const unit = $("unit-choice").value, name = $("node-name").value.trim();
    // KEY=VALUE words as a session's node takes them (channels=2, a parameter=value).
    const settings = $("node-settings").value.trim().split(/\s+/).filter(Boolean).map(quote).join(" ");
    if (unit && name) run(`add ${quote(name)} ${quote(unit)} ${settings}`.trim()).then(() => ($("node-name").value = "")).catch(() => {});
  });
  $("connect").addEventListener("click", () => run(`connect ${$("connect-from").value} ${$("connect-to").value}${$("connect-convert").checked ? " convert" : ""}`).catch(() => {}));

  session.on("meter", (data) => {
    showMeter(data.bus, data.peak, data.average);
    if (data.loudness) showLoudness(data.bus, data.loudness);
  });
  session.on("parameter", (data) => state.controls.get(`${data.node} ${data.parameter}`)?.(data.value));
  let pending = null;
  const later = () => {
    clearTimeout(pending);
    pending = setTimeout(() => refresh().catch((e) => notify(e.message)), 30);
  };
  session.on("edit", later);
  session.on("graph", (data) => { notify(typeof data === "string" ? data : JSON.stringify(data), "note"); later(); });
  session.on("property", later);
  session.on("record", () => { refreshTakes(); later(); });
  session.on("time", (data) => {
    const out = document.querySelector(`[data-player="${CSS.escape(data.node)}"] .position`);
    if (out) out.textContent = `${data.seconds.toFixed(3)} s`;
  });
  for (const kind of ["warning", "log", "interruption", "jack", "eof"]) {
    session.on(kind, (data) => notify(`${kind}: ${data.text ?? data.message ?? JSON.stringify(data)}`, kind === "warning" ? "error" : "note"));
  }
  session.on("closed", () => {
    document.body.classList.add("disconnected");
    notify("the session closed the connection; reload to reconnect");
  });
}

async function main() {
  wire();
  await session.connect();
  await refresh();
  await searchUnits();
  await status();
  setInterval(status, 500);
  document.body.classList.add("ready");
}

main().catch((error) => notify(error.message));
