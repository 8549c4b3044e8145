"use strict";
// The report page: tabs, hover tips, and the sample browser over the embedded data
// (base64 of gzip of JSON, written by eval/report_html/__init__.py; inflated with DecompressionStream).

const PAGE_SIZE = 200;
const FILTERS = ["run", "bench", "config", "len", "depth", "outcome", "q"];
const EVIDENCE = new Set(["needle", "gold", "ref", "distractor"]);
const MARK_NAMES = {
  needle: "needle", gold: "gold document", ref: "RefList document", distractor: "distractor",
  answer: "reference answer", extracted: "extracted by the scorer", hit: "reference found",
};
let DATA = null;
let matches = [];
let shown = 0;
let selected = -1;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// Tabs ----------------------------------------------------------------------------------------------

function route() {
  const [tab, query] = (location.hash.replace(/^#/, "") || "leaderboard").split("?");
  const name = document.getElementById(tab) && document.getElementById(tab).classList.contains("tab") ? tab : "leaderboard";
  const switching = !document.getElementById(name).classList.contains("active");
  document.querySelectorAll(".tab").forEach((s) => s.classList.toggle("active", s.id === name));
  document.querySelectorAll("#tabs a").forEach((a) => a.classList.toggle("active", a.dataset.tab === name));
  if (switching) window.scrollTo(0, 0);  // a tab opens at its top, not where its anchor scrolled under the header
  if (name === "samples" && DATA) {
    const params = new URLSearchParams(query || "");
    setFilters(params);
    applyFilters(false);
  }
}

// Hover tips ----------------------------------------------------------------------------------------

function tips() {
  const tip = document.getElementById("tip");
  document.addEventListener("mouseover", (event) => {
    const target = event.target.closest("[data-tip]");
    if (!target) { tip.hidden = true; return; }
    tip.textContent = target.getAttribute("data-tip");
    tip.hidden = false;
  });
  document.addEventListener("mousemove", (event) => {
    if (tip.hidden) return;
    const x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = `${x}px`;
    tip.style.top = `${event.clientY + 16}px`;
  });
}

// Data ----------------------------------------------------------------------------------------------

async function loadData() {
  const text = document.getElementById("sample-data").textContent.trim();
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

function numericFirst(a, b) {
  const x = Number(a), y = Number(b);
  const nx = a !== "" && !Number.isNaN(x), ny = b !== "" && !Number.isNaN(y);
  if (nx && ny) return x - y;
  if (nx !== ny) return nx ? -1 : 1;
  return String(a).localeCompare(String(b));
}

function facet(sample, name) {
  switch (name) {
    case "run": return String(sample.r);
    case "bench": return DATA.runs[sample.r].benchmark;
    case "config": return sample.c;
    case "len": return sample.f.len === undefined ? "" : sample.f.len;
    case "depth": return sample.f.depth === undefined ? "" : sample.f.depth;
    case "outcome": return sample.o;
    default: return "";
  }
}

function fillSelects() {
  for (const select of document.querySelectorAll("#filters select")) {
    const name = select.dataset.filter;
    let values = [...new Set(DATA.samples.map((s) => facet(s, name)))].filter((v) => v !== "");
    if (name === "outcome") values = DATA.outcomes.filter((o) => values.includes(o));
    else values.sort(numericFirst);
    select.replaceChildren(el("option", { value: "", text: "all" }));
    for (const value of values) {
      const label = name === "run" ? DATA.runs[Number(value)].label : value;
      const count = DATA.samples.filter((s) => facet(s, name) === value).length;
      select.append(el("option", { value, text: `${label} (${count})` }));
    }
    select.disabled = values.length < 2 && name !== "outcome";
  }
}

function currentFilters() {
  const chosen = {};
  for (const name of FILTERS) {
    const input = document.querySelector(`#filters [data-filter="${name}"]`);
    if (input && input.value) chosen[name] = input.value;
  }
  return chosen;
}

function setFilters(params) {
  for (const name of FILTERS) {
    const input = document.querySelector(`#filters [data-filter="${name}"]`);
    if (!input) continue;
    const value = params.get(name) || "";
    if (input.tagName === "SELECT" && value && ![...input.options].some((o) => o.value === value)) {
      input.append(el("option", { value, text: `${value} (0)` }));
    }
    input.value = value;
  }
}

function applyFilters(updateHash) {
  const chosen = currentFilters();
  const query = (chosen.q || "").toLowerCase();
  matches = [];
  DATA.samples.forEach((sample, index) => {
    for (const [name, value] of Object.entries(chosen)) {
      if (name !== "q" && facet(sample, name) !== value) return;
    }
    if (query && !(`${sample.id} ${sample.x || ""}`.toLowerCase().includes(query))) return;
    matches.push(index);
  });
  if (updateHash) {
    const params = new URLSearchParams(chosen).toString();
    history.replaceState(null, "", `#samples${params ? "?" + params : ""}`);
  }
  document.getElementById("sample-count").textContent = `${matches.length.toLocaleString()} of ${DATA.samples.length.toLocaleString()} samples`;
  shown = 0;
  document.getElementById("sample-list").replaceChildren();
  showMore();
}

function showMore() {
  const list = document.getElementById("sample-list");
  const upto = Math.min(matches.length, shown + PAGE_SIZE);
  for (let k = shown; k < upto; k++) list.append(listItem(matches[k]));
  shown = upto;
  document.getElementById("more").hidden = shown >= matches.length;
}

function badge(outcome) {
  return el("span", { class: `badge o-${outcome}`, text: outcome.replace("_", " ") });
}

function describeFacets(sample) {
  const bits = [sample.c];
  if (sample.f.len !== undefined) bits.push(`${sample.f.lenk} ${sample.f.len}`);
  if (sample.f.depth !== undefined) bits.push(`depth ${sample.f.depth}%`);
  if (sample.g !== undefined) bits.push(`response ${sample.g + 1}`);
  return bits.join(" · ");
}

function listItem(index) {
  const sample = DATA.samples[index];
  const score = sample.s === undefined ? "" : ` · ${(100 * sample.s).toFixed(1)}`;
  const item = el("li", { "data-index": String(index), class: index === selected ? "selected" : null },
    badge(sample.o), el("b", { text: DATA.runs[sample.r].label }), ` ${describeFacets(sample)}${score}`,
    el("span", { class: "rid", text: sample.id }));
  item.addEventListener("click", () => openSample(index));
  return item;
}

// One sample ----------------------------------------------------------------------------------------

function foldNote(tokens) {
  return el("span", { class: "fold", text: `⋯ ≈${tokens.toLocaleString()} tokens folded ⋯` });
}

function renderFolded(folded, withTags) {
  const box = el("div", { class: "text" });
  folded.parts.forEach(([start, text], i) => {
    if (folded.folds[i] > 0) box.append(foldNote(folded.folds[i]));
    box.append(renderPart(start, text, folded.marks, withTags));
  });
  const last = folded.folds[folded.parts.length];
  if (last > 0) box.append(foldNote(last));
  return box;
}

function renderPart(start, text, marks, withTags) {
  const end = start + text.length;
  const mine = marks.filter((m) => m[0] < end && m[1] > start);
  const cuts = new Set([start, end]);
  for (const [a, b] of mine) { cuts.add(Math.max(a, start)); cuts.add(Math.min(b, end)); }
  const edges = [...cuts].sort((x, y) => x - y);
  const fragment = document.createDocumentFragment();
  for (let k = 0; k + 1 < edges.length; k++) {
    const [a, b] = [edges[k], edges[k + 1]];
    if (withTags) {
      for (const m of mine) {
        if (m[0] === a && EVIDENCE.has(m[2])) fragment.append(el("span", { class: `tag m-${m[2]}`, text: m[3] }));
      }
    }
    const piece = text.slice(a - start, b - start);
    const covering = mine.filter((m) => m[0] <= a && m[1] >= b);
    if (!covering.length) { fragment.append(piece); continue; }
    const node = el("mark", {
      class: covering.map((m) => `m-${m[2]}`).join(" "), "data-start": String(a),
      title: [...new Set(covering.map((m) => m[3]))].join("; "), text: piece,
    });
    fragment.append(node);
  }
  return fragment;
}

function keyRow(kinds) {
  const row = el("div", { class: "key-row" });
  for (const kind of kinds) row.append(el("mark", { class: `m-${kind}`, text: MARK_NAMES[kind] || kind }));
  return row;
}

function answerCard(index) {
  const sample = DATA.samples[index];
  const run = DATA.runs[sample.r];
  const score = sample.s === undefined ? "" : ` score ${(100 * sample.s).toFixed(1)}`;
  const card = el("div", { class: "answer-card", "data-run": String(sample.r), "data-outcome": sample.o },
    el("h4", {}, badge(sample.o), el("span", { class: "run-label", text: run.label }), score));
  if (sample.why) card.append(el("p", { class: "reason", text: `Why: ${sample.why}` }));
  if (sample.xw) card.append(el("p", { class: "reason", text: "Extracted: the whole response (the scorer reads all of it)" }));
  else if (sample.x !== undefined && sample.x !== "") card.append(el("p", { class: "reason" }, "Extracted: ", el("code", { text: sample.x })));
  for (const note of sample.notes || []) card.append(el("p", { class: "sample-note", text: note }));
  if (sample.resp) {
    const kinds = [...new Set(sample.resp.marks.map((m) => m[2]))];
    if (kinds.length) card.append(keyRow(kinds));
    const text = renderFolded(sample.resp, false);
    text.classList.add("response");
    if (!sample.resp.n) text.append(el("em", { text: "(empty response)" }));
    card.append(text);
  }
  if (sample.rsn) card.append(el("details", {}, el("summary", { text: "reasoning" }), renderFolded(sample.rsn, false)));
  return card;
}

function siblings(index) {
  const sample = DATA.samples[index];
  if (sample.p < 0) return [index];
  const same = [];
  DATA.samples.forEach((other, k) => {
    if (other.p === sample.p && other.g === sample.g && other.id === sample.id) same.push(k);
  });
  return same.sort((a, b) => DATA.samples[a].r - DATA.samples[b].r);
}

function openSample(index) {
  selected = index;
  document.querySelectorAll("#sample-list li").forEach((li) => li.classList.toggle("selected", Number(li.dataset.index) === index));
  const sample = DATA.samples[index];
  const prompt = sample.p >= 0 ? DATA.prompts[sample.p] : null;
  const view = document.getElementById("sample-view");
  const facts = el("dl", {},
    el("dt", { text: "row" }), el("dd", {}, el("code", { text: sample.id })),
    el("dt", { text: "config" }), el("dd", { text: describeFacets(sample) }),
    el("dt", { text: "task" }), el("dd", { text: sample.t }),
    el("dt", { text: "metric" }), el("dd", { text: (DATA.tasks[sample.t] || {}).metric || "" }));
  if (prompt && prompt.q) facts.append(el("dt", { text: prompt.qf }), el("dd", { class: "question", text: prompt.q }));
  if (sample.ref) {
    const refs = el("ol", { class: "references" });
    for (const r of sample.ref) refs.append(el("li", { text: r }));
    facts.append(el("dt", { text: "expected" }), el("dd", {}, refs));
  }
  const cards = el("div", { class: "answers" });
  for (const k of siblings(index)) cards.append(answerCard(k));
  view.replaceChildren(el("h3", { text: sample.id }), facts, el("h4", { text: "Answers" }), cards);
  view.append(el("h4", { text: "Prompt" }));
  if (!prompt) {
    const notes = DATA.runs[sample.r].notes;
    view.append(el("p", { class: "note", text: notes.length ? notes.join("; ") : "The prompt could not be read from the release." }));
    return;
  }
  const kinds = [...new Set(prompt.marks.map((m) => m[2]))];
  const about = `${prompt.n.toLocaleString()} characters; ${prompt.how}; folded stretches are token estimates` +
    (prompt.measured ? " interpolated from the row's measured counts" : " from the script") +
    (prompt.hidden ? `; ${prompt.hidden} more evidence spans not shown (size budget)` : "") +
    (prompt.turns > 1 ? `; the last of ${prompt.turns} messages` : "");
  view.append(el("p", { class: "note", text: about }));
  if (prompt.missing) view.append(el("p", { class: "sample-note", text: `Not found in the prompt: ${prompt.missing.join("; ")}` }));
  if (kinds.length) view.append(keyRow(kinds));
  const text = renderFolded(prompt, true);
  text.classList.add("prompt");
  view.append(text);
}

// Start ---------------------------------------------------------------------------------------------

async function start() {
  document.body.classList.add("tabbed");
  tips();
  window.addEventListener("hashchange", route);
  route();
  try {
    DATA = await loadData();
  } catch (error) {
    document.getElementById("sample-count").textContent = `sample data unreadable: ${error}`;
    return;
  }
  fillSelects();
  for (const input of document.querySelectorAll("#filters [data-filter]")) {
    input.addEventListener(input.tagName === "SELECT" ? "change" : "input", () => applyFilters(true));
  }
  document.getElementById("more").addEventListener("click", showMore);
  if (!DATA.samples.length) {
    const notes = DATA.runs.flatMap((r) => r.notes.map((n) => `${r.label}: ${n}`));
    document.getElementById("sample-view").replaceChildren(el("p", { class: "note", text: `No samples. ${notes.join(" ")}` }));
  }
  route();
  if (!location.hash.startsWith("#samples")) applyFilters(false);
  document.body.dataset.ready = "true";
}

start();
