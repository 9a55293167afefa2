// postbot's review page: the replies the moderate plugin hid or was unsure of, from
// /api/review, rendered with DOM calls (textContent only, never innerHTML: replies are other
// people's words, shown as text whatever they contain), refreshed every 10 s.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const REFRESH_MS = 10_000;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const c of children.flat())
      if (c !== undefined && c !== null) node.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
    return node;
  }

  function age(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.round(s / 60)}m`;
    if (s < 86400) return `${Math.round(s / 3600)}h`;
    return `${Math.round(s / 86400)}d`;
  }

  function row(item, now) {
    const stands = item.state === "hidden" ? "hidden" : item.listed === "unsure" ? "unsure, visible" : "visible";
    const why = item.rule ? `${item.rule}${item.match ? ` matched "${item.match}"` : ""}` : `score ${item.score}`;
    const decision = item.decision
      ? `${item.decision.decision} by ${item.decision.by} (${item.decision.status})`
      : `bot review hide|unhide|keep ${item.post}`;
    return el(
      "tr",
      { "data-post": item.post },
      el("td", {}, `${age(now - item.at)} ago`),
      el("td", {}, item.bot),
      el("td", {}, el("div", {}, `@${item.author.username}: ${item.text}`), el("div", { class: "sub" }, item.post)),
      el("td", {}, `${stands} (${item.source})`),
      el("td", {}, el("div", {}, why), el("div", { class: "sub" }, item.reasons.join("; "))),
      el("td", { class: item.decision ? "" : "sub" }, decision),
    );
  }

  async function refresh() {
    try {
      const res = await fetch("/api/review", { cache: "no-store" });
      const view = await res.json();
      const open = view.items.filter((i) => !i.decision).length;
      $("summary").textContent = `${view.items.length} listed, ${open} without a decision`;
      $("items").replaceChildren(...view.items.map((i) => row(i, view.now)));
    } catch {
      $("summary").textContent = "could not load the review list; retrying";
    }
  }

  refresh();
  setInterval(refresh, REFRESH_MS);
})();
