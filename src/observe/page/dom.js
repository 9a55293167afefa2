// What the status page (status.js) and the review page (review.js) build their rows with:
// elements made by DOM calls with text nodes only (never innerHTML: bot names, usernames,
// post texts and reasons are shown as text, whatever they contain), and ages in short words.
"use strict";

window.postbotPage = {
  /** An element with attributes and children; strings become text nodes. */
  el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "title") node.title = v;
      else node.setAttribute(k, v);
    }
    for (const c of children.flat())
      if (c !== undefined && c !== null) node.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
    return node;
  },

  /** `42s`, `5m`, `3h`, `2d`. */
  age(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.round(s / 60)}m`;
    if (s < 86400) return `${Math.round(s / 3600)}h`;
    return `${Math.round(s / 86400)}d`;
  },
};
