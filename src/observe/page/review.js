// postbot's review page: the replies the moderate plugin hid or was unsure of, from
// /api/review, rendered with DOM calls (textContent only, never innerHTML: replies are other
// people's words, shown as text whatever they contain), refreshed every 10 s. When the admin
// API is on, each reply has hide, unhide and keep buttons, sent with the admin token typed in
// the page (kept in the input only, never stored).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el, age } = window.postbotPage;
  const REFRESH_MS = 10_000;

  /** A note above the list: what a decision did, or why it could not be made. */
  function note(text, bad) {
    const n = $("admin-note");
    n.textContent = text;
    n.className = bad ? "admin-note bad" : "admin-note";
    n.hidden = false;
  }

  /** Sends a decision through the admin API. */
  async function decide(item, decision, buttons) {
    const token = $("token").value.trim();
    if (!token) {
      note("type the admin token (POSTBOT_ADMIN_TOKEN of bot start) above first", true);
      $("token").focus();
      return;
    }
    for (const b of buttons) b.disabled = true;
    try {
      const res = await fetch(`/api/admin/review/${encodeURIComponent(item.bot)}/${encodeURIComponent(item.post)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ decision }),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) {
        note(`${decision} of reply ${item.post} refused: ${body.detail || res.status}`, true);
        if (res.status === 401) $("token").value = "";
      } else
        note(
          `${decision} of ${item.bot}'s reply ${item.post}: ${body.status}${body.reason ? ` (${body.reason})` : ""}`,
          !["sent", "duplicate", "dry-run", "none", "done already"].includes(body.status),
        );
    } catch {
      note(`${decision} of reply ${item.post}: the server did not answer`, true);
    } finally {
      for (const b of buttons) b.disabled = false;
    }
    refresh();
  }

  /** The decision cell: what was decided, or buttons (admin API on), or the command. */
  function decisionCell(item, admin) {
    if (item.decision)
      return el("td", {}, `${item.decision.decision} by ${item.decision.by} (${item.decision.status})`);
    if (!admin) return el("td", { class: "sub" }, `bot review hide|unhide|keep ${item.post}`);
    const buttons = ["hide", "unhide", "keep"]
      .filter((d) => (item.state === "hidden" ? d !== "hide" : d !== "unhide"))
      .map((d) => el("button", { type: "button", "data-decision": d }, d));
    for (const b of buttons) b.addEventListener("click", () => decide(item, b.dataset.decision, buttons));
    return el("td", {}, ...buttons);
  }

  function row(item, now, admin) {
    const stands = item.state === "hidden" ? "hidden" : item.listed === "unsure" ? "unsure, visible" : "visible";
    // In bot review's words, from /api/review (src/observe/review-words.ts).
    const why = item.why;
    return el(
      "tr",
      { "data-post": item.post },
      el("td", {}, `${age(now - item.at)} ago`),
      el("td", {}, item.bot),
      el("td", {}, el("div", {}, `@${item.author.username}: ${item.text}`), el("div", { class: "sub" }, item.post)),
      el("td", {}, `${stands} (${item.source})`),
      el("td", {}, el("div", {}, why), el("div", { class: "sub" }, item.reasons.join("; "))),
      decisionCell(item, admin),
    );
  }

  async function refresh() {
    try {
      const res = await fetch("/api/review", { cache: "no-store" });
      const view = await res.json();
      const open = view.items.filter((i) => !i.decision).length;
      $("summary").textContent = `${view.items.length} listed, ${open} without a decision`;
      $("token-form").hidden = !view.admin;
      $("items").replaceChildren(...view.items.map((i) => row(i, view.now, view.admin)));
    } catch {
      $("summary").textContent = "could not load the review list; retrying";
    }
  }

  $("token-form").addEventListener("submit", (e) => e.preventDefault());
  refresh();
  setInterval(refresh, REFRESH_MS);
})();
