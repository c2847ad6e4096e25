/* The sample viewer: filters run on the compact index; sample texts are loaded part by part from the
   sidecar folder (scripts holding gzip+base64 columns, so a page opened from disk can read them; the
   browser's DecompressionStream inflates them) and only when shown or searched. A text search keeps a
   lowercase haystack per part (within a character budget), so the next query scans memory, not parts. */
"use strict";
(function () {
  const V = DATA.viewer;
  const PAGE = 20, KEEP_PARTS = 16, READ_AHEAD = 8, HAY_BUDGET = 40e6;
  const esc = OMNI.esc;
  const parts = new Map(), waiting = new Map(), hays = new Map();
  let index = null, matches = null, page = 0, generation = 0, hayChars = 0;
  const $ = (id) => document.getElementById(id);

  function addScript(src, onerror) {
    const s = document.createElement("script");
    s.src = src; s.async = true; s.onerror = onerror;
    document.head.appendChild(s);
  }
  function problem(message) { $("v-count").textContent = message; document.body.dataset.viewer = "ready"; }
  const CORE = new Set(["task", "sample_id", "state", "score", "metrics", "response", "raw_response", "reasoning", "extracted",
    "reason", "targets", "variant", "finish_reason", "usage", "latency_s", "cached", "fingerprint", "chain", "chain_index", "repeat",
    "scored", "media_policy", "metadata", "prompt", "media", "intermediates", "episode", "audio"]);
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
  /* A cascade's perception steps (samples.jsonl "intermediates"): what each stage read from each media part. */
  function recognisedText(steps) {
    if (!Array.isArray(steps) || !steps.length) return undefined;
    const part = (st) => (st.name && st.name !== st.kind ? `${st.kind} ${st.name}` : st.kind);  // not "audio audio"
    return text(steps.map((st) => `${part(st)} read by ${st.stage}${st.cached ? " (cached)" : ""}: ${st.text === "" ? "[nothing recognised]" : st.text}`).join("\n"));
  }
  /* A record the model answered (an empty answer is shown as such, not hidden like an absent field). */
  const answered = (rec) => rec.state !== "error" && rec.state !== "skipped";
  const num = (v) => (typeof v === "number" ? String(Number(v.toFixed(4))) : "none");
  /* The judge stage's record (judge model, the sample's value, every call with its verdict and the
     judge's own words, which are its rationale) as readable lines rather than one JSON blob. */
  function judgeText(j) {
    const lines = [`${j.judge || "judge"}: ${j.key || "value"} = ${num(j.value)}${j.reason ? ` (${j.reason})` : ""}`];
    for (const call of j.calls) {
      lines.push(`• ${call.label}: verdict ${num(call.verdict)}`);
      (call.attempts || []).forEach((a, i) => {
        const tag = (call.attempts.length > 1 ? `attempt ${i + 1} ` : "");
        if (a.raw !== null && a.raw !== undefined) lines.push(`    ${tag}output: ${String(a.raw).trim()}`);
        if (a.error) lines.push(`    ${tag}error: ${a.error}`);
      });
    }
    return text(lines.join("\n"));
  }
  /* One record as stored in samples.jsonl (+ prompt/media rebuilt from the task data) → what a card shows.
     Judge verdicts and rationales are any field whose name mentions a judge, so new record fields show up. */
  function view(rec, added) {
    const judge = {}, extra = {};
    for (const [k, v] of Object.entries(rec)) {
      if (CORE.has(k) || empty(v)) continue;
      const structured = k === "judge" && v && typeof v === "object" && Array.isArray(v.calls);
      (k.toLowerCase().includes("judge") ? judge : extra)[k] = structured ? judgeText(v) : text(v);
    }
    for (const [k, v] of Object.entries(rec.metadata || {})) if (k.toLowerCase().includes("judge") && !empty(v)) judge["metadata." + k] = text(v);
    const ownMedia = recordMedia(rec.media);
    return {
      id: String(rec.sample_id), task: rec.task, state: rec.state, score: rec.score, scored: rec.scored, variant: rec.variant, repeat: rec.repeat,
      prompt: text(rec.prompt) || (added && added.prompt), media: ownMedia.length ? ownMedia : (added && added.media) || [],
      recognised: recognisedText(rec.intermediates), spoken: rec.audio && rec.audio.path ? rec.audio : undefined,
      response: answered(rec) ? (text(rec.response) || "[empty: the model returned no text]") : text(rec.response), reasoning: text(rec.reasoning), extracted: text(rec.extracted),
      targets: text(rec.targets && rec.targets.length ? rec.targets : undefined), metrics: rec.metrics || {}, reason: text(rec.reason),
      judge: judge, extra: extra, metadata: text(rec.metadata), episode: rec.episode || null,
    };
  }
  const decoder = new TextDecoder();
  function unbase64(b64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(b64);
    const bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }
  /* Writing the whole buffer and reading one ArrayBuffer back is about twice as fast as Response(stream).text(). */
  async function inflate(b64) {
    const ds = new DecompressionStream("gzip"), writer = ds.writable.getWriter();
    writer.write(unbase64(b64)).catch(() => {});  // a corrupt part rejects the read below, with the reason
    writer.close().catch(() => {});
    return JSON.parse(decoder.decode(await new Response(ds.readable).arrayBuffer()));
  }
  function settle(i, value) {
    (waiting.get(i) || []).forEach((resolve) => resolve(value));
    waiting.delete(i);
  }
  window.OMNI_CHUNK = function (i, packed) {
    if (typeof DecompressionStream === "undefined") {
      problem("this browser cannot read the sample parts (it lacks DecompressionStream: use Chromium 80+, Firefox 113+ or Safari 16.4+)");
      return;
    }
    inflate(packed).then((data) => {
      const part = {n: data.n, cols: data.cols, added: data.added, views: new Array(data.n)};
      parts.set(i, part);
      while (parts.size > KEEP_PARTS) parts.delete(parts.keys().next().value);
      settle(i, part);
    }, (err) => problem(`could not read ${V.dir}/c${i}.js: ${err}`));
  };
  function chunk(i) {
    if (parts.has(i)) { const p = parts.get(i); parts.delete(i); parts.set(i, p); return Promise.resolve(p); }
    return new Promise((resolve) => {
      if (!waiting.has(i)) {
        waiting.set(i, []);
        addScript(`${V.dir}/c${String(i).padStart(5, "0")}.js`, () => problem(`could not read ${V.dir}/c${i}.js — keep the ${V.dir} folder next to report.html`));
      }
      waiting.get(i).push(resolve);
    });
  }
  function row(cols, k) {
    const out = {};
    if (cols) for (const name in cols) { const v = cols[name][k]; if (v !== null && v !== undefined) out[name] = v; }
    return out;
  }
  const build = (part, k) => view(row(part.cols, k), part.added ? row(part.added, k) : null);
  function viewAt(part, k) { return part.views[k] || (part.views[k] = build(part, k)); }
  async function entry(pos) { return viewAt(await chunk(Math.floor(pos / V.chunk)), pos % V.chunk); }

  function haystack(e) {
    return [e.id, e.prompt, e.recognised, e.response, e.reasoning, e.extracted, e.targets, e.reason, JSON.stringify(e.judge || {}), e.metadata]
      .filter(Boolean).join("\n").toLowerCase();
  }
  /* One part's searchable text: every sample's haystack joined by \u0001, with where each one starts. */
  async function hay(i) {
    if (hays.has(i)) return hays.get(i);
    const part = await chunk(i);
    if (hays.has(i)) return hays.get(i);
    const starts = new Int32Array(part.n + 1), pieces = new Array(part.n);
    let length = 0;
    for (let k = 0; k < part.n; k++) {
      pieces[k] = haystack(part.views[k] || build(part, k));
      starts[k] = length;
      length += pieces[k].length + 1;
    }
    starts[part.n] = length;
    const h = {text: pieces.join("\u0001"), starts};
    hays.set(i, h);
    hayChars += length;
    while (hayChars > HAY_BUDGET && hays.size > 1) {
      const [oldest, old] = hays.entries().next().value;
      hays.delete(oldest); hayChars -= old.starts[old.starts.length - 1];
    }
    return h;
  }
  function hitsIn(h, q) {
    const hit = new Set(), last = h.starts.length - 1;
    let from = 0, at;
    while ((at = h.text.indexOf(q, from)) >= 0) {
      let lo = 0, hi = last - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (h.starts[mid] <= at) lo = mid; else hi = mid - 1; }
      hit.add(lo);
      from = h.starts[lo + 1];
    }
    return hit;
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
    const q = $("f-search").value.trim().toLowerCase().replace(/\u0001/g, "");
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
        order.slice(k + 1, k + 1 + READ_AHEAD).forEach((next) => { if (!hays.has(next)) chunk(next); });  // read ahead while this part is scanned
        const hit = hitsIn(await hay(order[k]), q);
        if (mine !== generation) return;
        for (const pos of byChunk.get(order[k])) if (hit.has(pos % V.chunk)) kept.push(pos);
        if (k % 10 === 9) $("v-count").textContent = `searching… ${k + 1} of ${order.length} parts, ${kept.length} found`;
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
        const frames = (m.frames || []).map((f, i) => `<img class="frame" src="${esc(f)}" alt="frame ${i + 1}" title="${esc(m.label)} — frame ${i + 1}">`).join("");
        return `<div class="frames">${frames}</div><video controls preload="none" src="${esc(m.src)}" title="${esc(m.label)}"></video>`;
      }
      return `<span>${esc(m.label)}</span>`;
    }).join("");
    const label = V.blind ? "media (not shown to the model: blind run)" : "media";
    return `<div class="field${V.blind ? " blind" : ""}"><div class="k">${label}</div><div class="media">${html}</div></div>`;
  }
  /* An agent episode step by step: the model's words, each tool call with its arguments, its state (a
     failed call names its cause) and the images it showed, then how the episode ended. */
  function episodeHtml(ep) {
    if (!ep || !Array.isArray(ep.steps)) return "";
    const steps = ep.steps.map((st) => {
      const calls = (st.tool_calls || []).map((c, i) => {
        const o = (st.outcomes || [])[i] || {};
        const imgs = (o.images || []).map((src) => `<a href="${esc(src)}" target="_blank"><img loading="lazy" src="${esc(src)}" alt="${esc(c.name)}"></a>`).join("");
        const said = o.state === "ok" ? (o.output || "") : (o.cause || o.output || "");
        return `<li><code>${esc(c.name)}(${esc(c.arguments)})</code> <span class="chip ${o.state === "ok" ? "" : "muted"}">${esc(o.state || "?")}</span>
          <pre>${esc(String(said).slice(0, 2000))}</pre>${imgs ? `<div class="media">${imgs}</div>` : ""}</li>`;
      }).join("");
      const words = st.error ? `model error: ${st.error}` : (st.text || "");
      return `<li><b>step ${esc(String(st.index))}</b>${words ? `<pre>${esc(words)}</pre>` : ""}${calls ? `<ul>${calls}</ul>` : ""}</li>`;
    }).join("");
    return `<div class="field"><details open><summary>episode: ${esc(ep.end)} — ${esc(ep.end_reason || "")} (${ep.steps.length} steps, ${esc(String(ep.tokens || 0))} tokens)</summary><ol>${steps}</ol></details></div>`;
  }
  /* A spoken answer (samples.jsonl "audio"): the player, and what was measured of it. */
  function spoken(a) {
    if (!a) return "";
    const m = Object.entries(a.measures || {}).map(([k, v]) => `${k}=${v}`).join(" ");
    const facts = `${a.format} ${a.sample_rate} Hz, ${a.duration_s} s${a.problem ? `; ${a.problem}: ${a.detail || ""}` : ""}${m ? "; " + m : ""}`;
    return `<div class="field"><div class="k">spoken answer</div><audio controls preload="none" src="${esc(a.path)}"></audio><pre>${esc(facts)}</pre></div>`;
  }
  function card(e) {
    const state = V.states.indexOf(e.state) >= 0 ? e.state : "other";
    const score = e.scored === false ? "not scored" : (typeof e.score === "number" ? e.score.toFixed(3) : "–");
    const metrics = Object.entries(e.metrics || {}).map(([k, v]) => `<span>${esc(k)}=${typeof v === "number" ? v.toFixed(3) : esc(v)}</span>`).join("");
    const judge = Object.entries(e.judge || {}).map(([k, v]) => field(k, v, "judge")).join("");
    const extra = Object.entries(e.extra || {}).map(([k, v]) => field(k, v)).join("");
    return `<article class="sample" data-task="${esc(e.task)}" data-state="${esc(e.state)}">
      <div class="head"><span class="badge ${esc(state)}">${esc(e.state)}</span><b>${esc(e.task)}</b>
        <span class="sid">${esc(e.id)}</span>${e.repeat != null ? `<span class="chip muted">repeat ${esc(String(e.repeat))}</span>` : ""}${e.variant ? `<span class="chip muted">variant ${esc(e.variant)}</span>` : ""}
        <span class="score ${e.score === 1 ? "s1" : e.score === 0 && e.scored !== false ? "s0" : ""}">${score}</span></div>
      <div class="body"><div class="col">
        ${field("prompt", e.prompt)}${media(e.media)}${field("target", e.targets)}
        ${e.metadata ? `<div class="field"><details><summary>sample metadata</summary><pre>${esc(e.metadata)}</pre></details></div>` : ""}
      </div><div class="col">
        ${field("recognised by the cascade", e.recognised)}${spoken(e.spoken)}${field(e.spoken ? "transcript (what was heard)" : "response", e.response)}
        ${e.reasoning ? `<div class="field"><details><summary>reasoning (${e.reasoning.length} chars)</summary><pre>${esc(e.reasoning)}</pre></details></div>` : ""}
        ${field("extracted answer", e.extracted)}
        ${metrics ? `<div class="field"><div class="k">metrics</div><div class="metrics">${metrics}</div></div>` : ""}
        ${field(e.state !== "ok" ? "why not ok" : "note", e.reason)}${judge}${extra}
      </div></div>${episodeHtml(e.episode)}</article>`;
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
