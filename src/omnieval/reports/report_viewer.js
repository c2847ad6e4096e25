/* The sample viewer: filters run on the compact index; sample texts are loaded chunk by chunk from the
   sidecar folder (script files, so a page opened from disk can read them) and only when shown/searched. */
"use strict";
(function () {
  const V = DATA.viewer;
  const PAGE = 20, KEEP_CHUNKS = 40;
  const esc = OMNI.esc;
  const chunks = new Map(), waiting = new Map();
  let index = null, matches = null, page = 0, generation = 0;
  const $ = (id) => document.getElementById(id);

  function addScript(src, onerror) {
    const s = document.createElement("script");
    s.src = src; s.async = true; s.onerror = onerror;
    document.head.appendChild(s);
  }
  const CORE = new Set(["task", "sample_id", "state", "score", "metrics", "response", "raw_response", "reasoning", "extracted",
    "reason", "targets", "variant", "finish_reason", "usage", "latency_s", "cached", "fingerprint", "chain", "chain_index",
    "scored", "media_policy", "metadata", "prompt", "media"]);
  const MAX_TEXT = 20000;
  const empty = (v) => v === null || v === undefined || v === "" || (typeof v === "object" && Object.keys(v).length === 0);
  function text(v) {
    if (empty(v)) return undefined;
    const s = typeof v === "string" ? v : JSON.stringify(v);
    return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + `\n… [${s.length - MAX_TEXT} more characters]` : s;
  }
  function recordMedia(items) {
    return (Array.isArray(items) ? items : []).filter((m) => m && (m.src || m.path))
      .map((m) => ({kind: m.kind || "image", src: m.src || m.path, label: m.name || m.label || ""}));
  }
  /* One record as stored in samples.jsonl (+ prompt/media rebuilt from the task data) → what a card shows.
     Judge verdicts and rationales are any field whose name mentions a judge, so new record fields show up. */
  function view(rec, added) {
    const judge = {}, extra = {};
    for (const [k, v] of Object.entries(rec)) {
      if (CORE.has(k) || empty(v)) continue;
      (k.toLowerCase().includes("judge") ? judge : extra)[k] = text(v);
    }
    for (const [k, v] of Object.entries(rec.metadata || {})) if (k.toLowerCase().includes("judge") && !empty(v)) judge["metadata." + k] = text(v);
    const ownMedia = recordMedia(rec.media);
    return {
      id: String(rec.sample_id), task: rec.task, state: rec.state, score: rec.score, scored: rec.scored, variant: rec.variant,
      prompt: text(rec.prompt) || (added && added.prompt), media: ownMedia.length ? ownMedia : (added && added.media) || [],
      response: text(rec.response), reasoning: text(rec.reasoning), extracted: text(rec.extracted),
      targets: text(rec.targets && rec.targets.length ? rec.targets : undefined), metrics: rec.metrics || {}, reason: text(rec.reason),
      judge: judge, extra: extra, metadata: text(rec.metadata),
    };
  }
  window.OMNI_CHUNK = function (i, records, added) {
    const entries = records.map((r, k) => view(r, added && added[k]));
    chunks.set(i, entries);
    while (chunks.size > KEEP_CHUNKS) chunks.delete(chunks.keys().next().value);
    (waiting.get(i) || []).forEach((resolve) => resolve(entries));
    waiting.delete(i);
  };
  function chunk(i) {
    if (chunks.has(i)) { const e = chunks.get(i); chunks.delete(i); chunks.set(i, e); return Promise.resolve(e); }
    return new Promise((resolve) => {
      if (!waiting.has(i)) {
        waiting.set(i, []);
        addScript(`${V.dir}/c${String(i).padStart(5, "0")}.js`, () => { $("v-count").textContent = `could not read ${V.dir}/c${i}.js — keep the ${V.dir} folder next to report.html`; });
      }
      waiting.get(i).push(resolve);
    });
  }
  async function entry(pos) { return (await chunk(Math.floor(pos / V.chunk)))[pos % V.chunk]; }

  function haystack(e) {
    if (e._h === undefined) {
      e._h = [e.id, e.prompt, e.response, e.reasoning, e.extracted, e.targets, e.reason, JSON.stringify(e.judge || {}), e.metadata]
        .filter(Boolean).join("\n").toLowerCase();
    }
    return e._h;
  }

  function indexMatches() {
    const t = $("f-task").value, s = $("f-state").value, v = $("f-variant").value;
    const lo = $("f-min").value === "" ? -Infinity : Math.round(parseFloat($("f-min").value) * 1000);
    const hi = $("f-max").value === "" ? Infinity : Math.round(parseFloat($("f-max").value) * 1000);
    const scoreFilter = lo !== -Infinity || hi !== Infinity;
    const out = [];
    for (let i = 0; i < index.n; i++) {
      if (t !== "" && index.t[i] !== +t) continue;
      if (s !== "" && index.s[i] !== +s) continue;
      if (v !== "" && index.v[i] !== +v) continue;
      if (scoreFilter && (index.c[i] < 0 || index.c[i] < lo || index.c[i] > hi)) continue;
      out.push(i);
    }
    return out;
  }

  async function apply() {
    const mine = ++generation;
    document.body.dataset.viewer = "busy";
    page = 0;
    let found = indexMatches();
    const q = $("f-search").value.trim().toLowerCase();
    if (q) {
      const kept = [];
      const byChunk = new Map();
      for (const pos of found) {
        const c = Math.floor(pos / V.chunk);
        if (!byChunk.has(c)) byChunk.set(c, []);
        byChunk.get(c).push(pos);
      }
      const order = [...byChunk.keys()];
      for (let k = 0; k < order.length; k++) {
        order.slice(k + 1, k + 4).forEach((next) => chunk(next));  // read ahead while this part is scanned
        const entries = await chunk(order[k]);
        if (mine !== generation) return;
        for (const pos of byChunk.get(order[k])) if (haystack(entries[pos % V.chunk]).includes(q)) kept.push(pos);
        $("v-count").textContent = `searching… ${k + 1} of ${order.length} parts, ${kept.length} found`;
      }
      found = kept;
    }
    if (mine !== generation) return;
    matches = found;
    render();
  }

  function field(label, value, cls) {
    if (value === undefined || value === null || value === "") return "";
    return `<div class="field ${cls || ""}"><div class="k">${esc(label)}</div><pre>${esc(value)}</pre></div>`;
  }
  function media(items) {
    if (!items || !items.length) return "";
    const html = items.map((m) => {
      if (!m.src) return `<span class="muted">${esc(m.label)}</span>`;
      if (m.kind === "image") return `<a href="${esc(m.src)}" target="_blank"><img loading="lazy" src="${esc(m.src)}" alt="${esc(m.label)}" title="${esc(m.label)}"></a>`;
      if (m.kind === "audio") return `<audio controls preload="none" src="${esc(m.src)}" title="${esc(m.label)}"></audio>`;
      if (m.kind === "video") {
        const frames = (m.frames || []).map((f, i) => `<img class="frame" src="${f}" alt="frame ${i + 1}" title="${esc(m.label)} — frame ${i + 1}">`).join("");
        return `<div class="frames">${frames}</div><video controls preload="none" src="${esc(m.src)}" title="${esc(m.label)}"></video>`;
      }
      return `<span>${esc(m.label)}</span>`;
    }).join("");
    return `<div class="field"><div class="k">media</div><div class="media">${html}</div></div>`;
  }
  function card(e) {
    const state = V.states.indexOf(e.state) >= 0 ? e.state : "other";
    const score = e.scored === false ? "not scored" : (typeof e.score === "number" ? e.score.toFixed(3) : "–");
    const metrics = Object.entries(e.metrics || {}).map(([k, v]) => `<span>${esc(k)}=${typeof v === "number" ? v.toFixed(3) : esc(v)}</span>`).join("");
    const judge = Object.entries(e.judge || {}).map(([k, v]) => field(k, v, "judge")).join("");
    const extra = Object.entries(e.extra || {}).map(([k, v]) => field(k, v)).join("");
    return `<article class="sample" data-task="${esc(e.task)}" data-state="${esc(e.state)}">
      <div class="head"><span class="badge ${esc(state)}">${esc(e.state)}</span><b>${esc(e.task)}</b>
        <span class="sid">${esc(e.id)}</span>${e.variant ? `<span class="chip muted">variant ${esc(e.variant)}</span>` : ""}
        <span class="score ${e.score === 1 ? "s1" : e.score === 0 && e.scored !== false ? "s0" : ""}">${score}</span></div>
      <div class="body"><div class="col">
        ${field("prompt", e.prompt)}${media(e.media)}${field("target", e.targets)}
        ${e.metadata ? `<div class="field"><details><summary>sample metadata</summary><pre>${esc(e.metadata)}</pre></details></div>` : ""}
      </div><div class="col">
        ${field("response", e.response)}
        ${e.reasoning ? `<div class="field"><details><summary>reasoning (${e.reasoning.length} chars)</summary><pre>${esc(e.reasoning)}</pre></details></div>` : ""}
        ${field("extracted answer", e.extracted)}
        ${metrics ? `<div class="field"><div class="k">metrics</div><div class="metrics">${metrics}</div></div>` : ""}
        ${field(e.state !== "ok" ? "why not ok" : "note", e.reason)}${judge}${extra}
      </div></div></article>`;
  }

  async function render() {
    const mine = generation;
    document.body.dataset.viewer = "busy";
    const total = matches.length, pages = Math.max(1, Math.ceil(total / PAGE));
    page = Math.min(page, pages - 1);
    const slice = matches.slice(page * PAGE, page * PAGE + PAGE);
    $("v-count").textContent = `${total.toLocaleString()} of ${index.n.toLocaleString()} samples`;
    $("v-page").textContent = `page ${page + 1} of ${pages}`;
    $("v-prev").disabled = page === 0; $("v-next").disabled = page >= pages - 1;
    const entries = await Promise.all(slice.map(entry));
    if (mine !== generation) return;
    $("v-list").innerHTML = entries.length ? entries.map(card).join("") : `<div class="empty">No sample matches these filters.</div>`;
    document.body.dataset.viewer = "ready";
    if (!performance.getEntriesByName("omni-first-page").length) performance.mark("omni-first-page");
  }

  function options(select, values, label) {
    select.innerHTML = `<option value="">${label}</option>` + values.map((v, i) => `<option value="${i}">${esc(v)}</option>`).join("");
  }
  window.OMNI_INDEX = function (data) {
    performance.mark("omni-index-loaded");
    index = data;
    options($("f-task"), data.tasks, "all tasks");
    options($("f-state"), data.states, "all states");
    options($("f-variant"), data.variants, data.variants.length ? "all variants" : "—");
    $("f-variant").disabled = !data.variants.length;
    let timer = null;
    const later = () => { document.body.dataset.viewer = "busy"; clearTimeout(timer); timer = setTimeout(apply, 250); };
    ["f-task", "f-state", "f-variant"].forEach((id) => $(id).addEventListener("change", apply));
    ["f-min", "f-max", "f-search"].forEach((id) => $(id).addEventListener("input", later));
    $("v-prev").addEventListener("click", () => { page--; render(); window.scrollTo(0, $("samples").offsetTop); });
    $("v-next").addEventListener("click", () => { page++; render(); window.scrollTo(0, $("samples").offsetTop); });
    apply();
  };
  if (V.n) addScript(`${V.dir}/index.js`, () => { $("v-count").textContent = `could not read ${V.dir}/index.js — keep the ${V.dir} folder next to report.html`; });
  else { $("v-count").textContent = "no samples"; document.body.dataset.viewer = "ready"; }
})();
