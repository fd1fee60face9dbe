// Controls for parameters, chosen by their hints: a slider with unit and range
// (logarithmic where the parameter is), a toggle, a menu for an enumeration, a stepper
// for an integer, and a meter for what the unit writes.

export function make(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  return node;
}

const UNIT_TEXT = {
  decibels: "dB", hertz: "Hz", seconds: "s", milliseconds: "ms", percent: "%", cents: "ct", semitones: "st",
  degrees: "°", meters: "m", sampleFrames: "fr", ratio: ":1", linearGain: "×",
};

export function formatValue(value, parameter) {
  if (parameter.values) return parameter.values[Math.round(value)] ?? String(value);
  if (parameter.hints.includes("toggled")) return value >= 0.5 ? "on" : "off";
  if (parameter.unit === "pan") {
    const percent = Math.round(Math.abs(value) * 100);
    return percent === 0 ? "C" : `${value < 0 ? "L" : "R"} ${percent}`;
  }
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${Number(value).toFixed(digits)} ${UNIT_TEXT[parameter.unit] ?? ""}`.trim();
}

// Slider position (0...1000) and value, linear or logarithmic between the bounds.
const STEPS = 1000;
function toPosition(value, p) {
  if (p.hints.includes("logarithmic") && p.min > 0) return (STEPS * Math.log(value / p.min)) / Math.log(p.max / p.min);
  return ((value - p.min) / (p.max - p.min || 1)) * STEPS;
}
function fromPosition(position, p) {
  if (p.hints.includes("logarithmic") && p.min > 0) return p.min * Math.pow(p.max / p.min, position / STEPS);
  return p.min + (position / STEPS) * (p.max - p.min);
}

// One control for `parameter` of `node`; `send(value)` sets it. Returns the element and
// `show(value)`, which moves it to a value the session reports unless the user holds it.
export function control(node, parameter, send) {
  const row = make("label", { class: "param", "data-node": node, "data-param": parameter.parameter });
  row.append(make("span", { class: "param-name" }, parameter.name));
  const readout = make("output", { class: "param-value" });
  let input;
  let held = false;
  const hints = parameter.hints;
  if (hints.includes("output")) {
    input = make("meter", { min: parameter.min, max: parameter.max, value: parameter.value });
  } else if (parameter.values) {
    input = make("select");
    parameter.values.forEach((name, index) => input.append(make("option", { value: index }, name)));
    input.addEventListener("change", () => send(Number(input.value)));
  } else if (hints.includes("toggled")) {
    input = make("input", { type: "checkbox", class: "toggle" });
    input.addEventListener("change", () => send(input.checked ? 1 : 0));
  } else if (hints.includes("integer")) {
    input = make("input", { type: "number", min: parameter.min, max: parameter.max, step: 1 });
    input.addEventListener("change", () => send(Number(input.value)));
  } else {
    input = make("input", { type: "range", min: 0, max: STEPS, step: 1 });
    input.addEventListener("input", () => {
      const value = fromPosition(Number(input.value), parameter);
      readout.textContent = formatValue(value, parameter);
      send(value);
    });
  }
  input.addEventListener("pointerdown", () => (held = true));
  window.addEventListener("pointerup", () => (held = false));
  input.disabled = !parameter.writable && !hints.includes("output");
  row.append(input, readout);
  const show = (value) => {
    readout.textContent = formatValue(value, parameter);
    row.dataset.value = value;
    if (held) return;
    if (input.tagName === "METER") input.value = value;
    else if (input.tagName === "SELECT") input.value = Math.round(value);
    else if (input.type === "checkbox") input.checked = value >= 0.5;
    else if (input.type === "number") input.value = value;
    else input.value = toPosition(value, parameter);
  };
  show(parameter.value);
  return { element: row, show };
}

// Sends at most one change of a control per animation frame, the latest value winning,
// so dragging never floods the session.
export function throttled(send) {
  let pending = null, scheduled = false;
  return (value) => {
    pending = value;
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      send(pending);
    });
  };
}

// Fader positions in dB: the bottom is silence, the top +12 dB (linear gain 4).
export const FADER_MIN_DB = -60, FADER_MAX_DB = 12;
export const faderToGain = (db) => (db <= FADER_MIN_DB ? 0 : Math.pow(10, db / 20));
export const gainToFader = (gain) => (gain <= 0 ? FADER_MIN_DB : Math.max(FADER_MIN_DB, Math.min(FADER_MAX_DB, 20 * Math.log10(gain))));
export const dbText = (db) => (db <= -159 ? "-inf" : db.toFixed(1));
