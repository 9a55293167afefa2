// postbot's status page: fetches one page of bots from /api/status, renders it with DOM
// calls (textContent only, never innerHTML: bot names, usernames, post texts and reasons
// are shown as text, whatever they contain), and follows /events (server-sent events) to
// refresh what changed without a reload. When the admin API is on, each bot has a pause or
// resume button; the admin token is asked for once and kept in this page's memory only. With
// templates (bot start --http), the summary links to the page where accounts connect, and a
// bot made by connecting whose token was revoked links to where its account connects again.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el, age } = window.postbotPage;
  const KINDS_SHOWN = ["reply", "like", "repost", "follow", "dm", "hide", "post"];
  /** The smallest gap between two fetches of the page's data (a burst of updates is one fetch). */
  const MIN_REFRESH_MS = 300;
  /** Ages ("3m ago") and queue figures are refreshed this often even when nothing is reported. */
  const IDLE_REFRESH_MS = 10_000;
  /** Paused bots listed at the top; the rest are a click away (the list below, filtered). */
  const PAUSED_SHOWN = 5;
  /** Latest actions listed above the bots (each bot's own are in its row). */
  const RECENT_SHOWN = 10;

  const params = new URLSearchParams(location.search);
  const query = {
    q: params.get("q") || "",
    state: params.get("state") || "all",
    page: Number(params.get("page")) || 1,
    per: Number(params.get("per")) || 50,
  };
  let view;
  let fetching = false;
  let again = false;
  let lastFetch = 0;
  let timer;
  /** Bumped by every change of the query, so an answer to an older query is never shown. */
  let asked = 0;
  /** The admin token, once given: in memory only (never stored), forgotten on reload or refusal. */
  let adminToken;

  const ago = (at) => (at === undefined || at === null ? "never" : `${age(view.now - at)} ago`);
  const until = (at) => (at === undefined || at === null ? "never" : `in ${age(at - view.now)}`);
  const windowName = (ms) =>
    ms % 86400000 === 0
      ? `${ms / 86400000}d`
      : ms % 3600000 === 0
        ? `${ms / 3600000}h`
        : ms % 60000 === 0
          ? `${ms / 60000}m`
          : `${ms / 1000}s`;
  const plural = (n, one, many) => (n === 1 ? one : many);
  const short = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

  /**
   * What an action was about, for a person: the text it sent (a reply, a post, a DM), else
   * who or what it acted on (`@ana: “any tips…”`), else why it ended so, else the bare id.
   */
  function what(a, n) {
    if (a.text !== undefined) return el("span", { class: "text", title: a.text }, `“${short(a.text, n)}”`);
    if (a.about) return el("span", { class: "text", title: a.reason || a.target }, short(a.about, n));
    if (a.reason) return el("span", { class: "text", title: a.reason }, short(a.reason, n));
    return el("span", { class: "text id", title: a.target }, a.target);
  }

  function actionLine(a) {
    return el(
      "li",
      {},
      el("span", { class: `badge ${a.status}` }, `${a.kind} ${a.status}`),
      " ",
      el("span", { class: "sub" }, ago(a.at)),
      " ",
      what(a, 80),
    );
  }

  /** One window of the model's budget as a bar row: what is left, and when more comes once spent. */
  function modelRow(name, w) {
    const left = Math.max(0, w.limit - w.used);
    const share = w.limit > 0 ? Math.min(1, left / w.limit) : 0;
    const bar = el("div", { class: "bar" }, el("span"));
    bar.firstChild.style.width = `${Math.round(share * 100)}%`;
    if (left === 0) bar.classList.add("empty");
    else if (share < 0.2) bar.classList.add("low");
    bar.title =
      left === 0 ? `used up; more ${until(w.resetAt)}` : `${w.used} used in the last ${windowName(w.windowMs)}`;
    const label = `${left.toLocaleString("en-US")}/${w.limit.toLocaleString("en-US")} per ${windowName(w.windowMs)}`;
    return [
      el("span", {}, name),
      bar,
      el("span", { class: "num" }, left === 0 ? `${label}, more ${until(w.resetAt)}` : label),
    ];
  }

  /**
   * The bot's language model: what budget.llm leaves (tokens and requests, a 429's pause), and
   * its requests in flight to each model server and replies waiting for one of its slots.
   */
  function modelBudget(llm, models) {
    const grid = el("div", { class: "budget llm" });
    if (llm?.tokens) grid.append(...modelRow("tokens", llm.tokens));
    if (llm?.requests) grid.append(...modelRow("requests", llm.requests));
    return el(
      "div",
      { class: "model" },
      el("div", { class: "sub" }, "language model"),
      grid,
      llm?.pausedUntil !== undefined
        ? el("div", { class: "reason" }, `paused by the model server (429): asks again ${until(llm.pausedUntil)}`)
        : null,
      llm?.waiting > 0 ? el("div", { class: "sub" }, `${llm.waiting} waiting for the model's budget`) : null,
      (models || []).map((m) =>
        el(
          "div",
          { class: "sub" },
          `${m.inFlight} in flight to ${m.server}${m.waiting > 0 ? `, ${m.waiting} waiting for a request slot` : ""}`,
        ),
      ),
    );
  }

  function budgetCell(bars, llm, models) {
    if (bars.length === 0 && !llm && !models) return el("span", { class: "sub" }, "—");
    const model = llm || models ? modelBudget(llm, models) : null;
    if (bars.length === 0) return model;
    const grid = el("div", { class: "budget" });
    const byKind = new Map(bars.map((b) => [b.kind, b]));
    for (const kind of KINDS_SHOWN) {
      const b = byKind.get(kind);
      if (!b) continue;
      const bar = el("div", { class: "bar" }, el("span"));
      let label;
      if (b.limit === 0 && b.remaining === 0) {
        bar.classList.add("none");
        label = "not on plan";
        bar.title = b.reason || "the plan has no such action";
      } else {
        const share = b.limit > 0 ? Math.min(1, b.remaining / b.limit) : 0;
        bar.firstChild.style.width = `${Math.round(share * 100)}%`;
        if (b.remaining === 0) bar.classList.add("empty");
        else if (share < 0.2) bar.classList.add("low");
        label = `${b.remaining}/${b.limit}${b.window ? ` per ${windowName(b.window.ms)}` : ""}`;
        bar.title =
          b.remaining === 0
            ? `${b.reason || "used up"}; more ${until(b.readyAt)}`
            : `${b.window ? `${b.window.scope} window of ${windowName(b.window.ms)}` : ""}`;
      }
      grid.append(el("span", {}, kind), bar, el("span", { class: "num" }, label));
    }
    return model ? el("div", {}, grid, model) : grid;
  }

  function triggersCell(triggers) {
    const names = Object.keys(triggers);
    if (names.length === 0) return el("span", { class: "sub" }, "no trigger has run yet");
    return el(
      "ul",
      { class: "triggers" },
      names.map((name) => {
        const t = triggers[name];
        return el(
          "li",
          {},
          el("b", {}, name),
          ` checked ${ago(t.lastCheckAt)} · last event ${ago(t.lastEventAt)} · ${t.events}${plural(t.events, " event", " events")}`,
        );
      }),
    );
  }

  /** A note under the header: what a button did, or why it could not. */
  function note(text, bad) {
    const n = $("admin-note");
    n.textContent = text;
    n.className = bad ? "admin-note bad" : "admin-note";
    n.hidden = false;
  }

  /** Asks for the admin token in the dialog; resolves with it, or undefined when cancelled. */
  function askToken(error) {
    const dialog = $("token-dialog");
    const input = $("token");
    input.value = "";
    $("token-error").hidden = !error;
    $("token-error").textContent = error || "";
    return new Promise((resolve) => {
      const done = (value) => {
        $("token-form").removeEventListener("submit", onSubmit);
        $("token-cancel").removeEventListener("click", onCancel);
        dialog.removeEventListener("cancel", onCancel);
        dialog.close();
        resolve(value);
      };
      const onSubmit = (e) => {
        e.preventDefault();
        done(input.value.trim() || undefined);
      };
      const onCancel = (e) => {
        e.preventDefault();
        done(undefined);
      };
      $("token-form").addEventListener("submit", onSubmit);
      $("token-cancel").addEventListener("click", onCancel);
      dialog.addEventListener("cancel", onCancel);
      dialog.showModal();
      input.focus();
    });
  }

  /** Pauses or resumes a bot through the admin API, asking for the token when needed. */
  async function fleetAction(bot, action, button) {
    let error;
    for (;;) {
      if (!adminToken) adminToken = await askToken(error);
      if (!adminToken) return;
      button.disabled = true;
      let res;
      try {
        res = await fetch(`/api/admin/bots/${encodeURIComponent(bot)}/${action}`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}` },
          cache: "no-store",
        });
      } catch {
        button.disabled = false;
        return note(`could not reach postbot to ${action} ${bot}; try again`, true);
      }
      button.disabled = false;
      if (res.status === 401) {
        adminToken = undefined;
        error = "That token was refused; give this process's POSTBOT_ADMIN_TOKEN.";
        continue;
      }
      if (!res.ok) {
        const problem = await res.json().catch(() => ({}));
        return note(`${action} ${bot}: ${problem.detail || `answered ${res.status}`}`, true);
      }
      note(`${bot} ${action === "pause" ? "paused" : "resumed"}`);
      return refreshSoon();
    }
  }

  function fleetButton(b) {
    const action = b.state === "paused" ? "resume" : "pause";
    const button = el("button", { type: "button", class: "fleet", "data-action": action }, action);
    button.addEventListener("click", () => void fleetAction(b.bot, action, button));
    return button;
  }

  /** "2 dialogs open · 5 steps, 1 timeout": a bot's dialogs, when it holds any. */
  function dialogsLine(c) {
    const open = c.open.thread + c.open.dm;
    return `${open}${plural(open, " dialog", " dialogs")} open · ${c.steps}${plural(c.steps, " step", " steps")}, ${c.timeouts}${plural(c.timeouts, " timeout", " timeouts")}`;
  }

  function botRow(b) {
    return el(
      "tr",
      { "data-bot": b.bot },
      el(
        "td",
        {},
        el("div", { class: "name" }, b.bot),
        el("div", { class: "sub" }, `@${b.username || "?"} · ${b.plan} · app ${b.app}`),
      ),
      el(
        "td",
        {},
        el("span", { class: `badge ${b.state}` }, b.state),
        b.paused ? el("div", { class: "reason" }, `since ${ago(b.paused.at)}: ${b.paused.reason}`) : null,
        b.reconnect
          ? el("div", {}, el("a", { href: b.reconnect, class: "reconnect" }, "connect the account again"))
          : null,
        b.inbox > 0 ? el("div", { class: "sub" }, `${b.inbox}${plural(b.inbox, " event", " events")} waiting`) : null,
        b.dialogs ? el("div", { class: "sub dialogs" }, dialogsLine(b.dialogs)) : null,
        view.admin ? el("div", {}, fleetButton(b)) : null,
      ),
      el("td", {}, budgetCell(b.budget, b.llm, b.models)),
      el("td", {}, triggersCell(b.triggers)),
      el(
        "td",
        {},
        b.last.length
          ? el("ul", { class: "last" }, b.last.map(actionLine))
          : el("span", { class: "sub" }, "no action yet"),
      ),
    );
  }

  function render() {
    const v = view;
    $("summary").replaceChildren(
      ...[
        el("span", {}, el("b", {}, v.total), plural(v.total, " bot", " bots")),
        el("span", {}, el("b", {}, v.counts.running), " running"),
        el("span", {}, el("b", {}, v.counts.paused), " paused"),
        el("span", {}, el("b", {}, v.queueDepth), " waiting for budget"),
        v.phase === "running" ? null : el("span", { class: "badge paused" }, v.phase),
        el("span", {}, `as of ${new Date(v.now).toISOString().replace("T", " ").slice(0, 19)} UTC`),
        v.connect ? el("a", { href: v.connect, id: "connect-link" }, "connect an account") : null,
      ].filter(Boolean),
    );
    $("paused-section").hidden = v.paused.length === 0;
    const pausedShown = v.paused.slice(0, PAUSED_SHOWN);
    const pausedItems = pausedShown.map((p) =>
      el(
        "li",
        {},
        el("span", { class: "name" }, p.bot),
        " ",
        el("span", { class: "sub" }, `paused ${ago(p.at)}`),
        el("div", { class: "reason" }, p.reason),
        p.reconnect ? el("a", { href: p.reconnect, class: "reconnect" }, "connect the account again") : null,
      ),
    );
    if (v.counts.paused > pausedShown.length) {
      const all = el(
        "button",
        { type: "button", id: "show-paused" },
        `show all ${v.counts.paused} paused bots in the list below`,
      );
      all.addEventListener("click", () => {
        $("state").value = "paused";
        setQuery({ state: "paused", page: 1 });
        $("bots").scrollIntoView();
      });
      pausedItems.push(el("li", { class: "sub" }, `and ${v.counts.paused - pausedShown.length} more `, all));
    }
    $("paused").replaceChildren(...pausedItems);
    $("streams").replaceChildren(
      ...(v.streams.length === 0
        ? [el("li", { class: "sub" }, "no stream (no bot has stream rules, or it has not connected yet)")]
        : v.streams.map((s) =>
            el(
              "li",
              {},
              el("span", { class: "name" }, `app ${s.app}`),
              " ",
              el("span", { class: `badge ${s.state}` }, s.state),
              el(
                "span",
                { class: "sub" },
                ` since ${ago(s.since)} · ${s.reconnects}${plural(s.reconnects, " reconnect", " reconnects")}${s.cause ? ` · cause ${s.cause}` : ""}`,
              ),
              s.lastError ? el("div", { class: "reason" }, `last error: ${s.lastError}`) : null,
            ),
          )),
    );
    $("recent").replaceChildren(
      ...(v.recent.length === 0
        ? [el("tr", {}, el("td", { colspan: "5", class: "empty-note" }, "no action yet"))]
        : v.recent
            .slice(0, RECENT_SHOWN)
            .map((a) =>
              el(
                "tr",
                {},
                el("td", { class: "when" }, ago(a.at)),
                el("td", { class: "name" }, a.bot),
                el("td", {}, a.kind),
                el("td", {}, el("span", { class: `badge ${a.status}` }, a.status)),
                el("td", {}, what(a, 200)),
              ),
            )),
    );
    $("bots").replaceChildren(
      ...(v.bots.length === 0
        ? [
            el(
              "tr",
              {},
              el("td", { colspan: "5", class: "empty-note" }, v.total === 0 ? "no bots yet" : "no bot matches"),
            ),
          ]
        : v.bots.map(botRow)),
    );
    $("pageinfo").textContent =
      `page ${v.query.page} of ${v.pages} · ${v.matched} of ${v.total}${plural(v.total, " bot", " bots")}`;
    $("prev").disabled = v.query.page <= 1;
    $("next").disabled = v.query.page >= v.pages;
  }

  async function load() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    lastFetch = Date.now();
    const askedNow = asked;
    try {
      const qs = new URLSearchParams({
        q: query.q,
        state: query.state,
        page: String(query.page),
        per: String(query.per),
      });
      const res = await fetch(`/api/status?${qs}`, { cache: "no-store" });
      if (res.ok && askedNow !== asked) {
        // The reader changed the query meanwhile (a click on "next" while a refresh was
        // under way): this answer is for the old one; the fetch below asks again.
        again = true;
      } else if (res.ok) {
        view = await res.json();
        query.page = view.query.page;
        query.per = view.query.per;
        showPer(view.query.per);
        render();
      }
    } catch {
      // The process may be restarting; the live connection says so and the next update retries.
    } finally {
      fetching = false;
      if (again) {
        again = false;
        refreshSoon();
      }
    }
  }

  /** Fetches again, at most once per MIN_REFRESH_MS however many updates arrive. */
  function refreshSoon() {
    if (timer) return;
    const wait = Math.max(0, lastFetch + MIN_REFRESH_MS - Date.now());
    timer = setTimeout(() => {
      timer = undefined;
      void load();
    }, wait);
  }

  function setQuery(change) {
    Object.assign(query, change);
    asked += 1;
    const qs = new URLSearchParams();
    if (query.q) qs.set("q", query.q);
    if (query.state !== "all") qs.set("state", query.state);
    if (query.page > 1) qs.set("page", String(query.page));
    if (query.per !== 50) qs.set("per", String(query.per));
    history.replaceState(null, "", qs.size ? `?${qs}` : location.pathname);
    void load();
  }

  /** Shows `per` in the page-size selector, with an option of its own when it is not one of the usual (`?per=2`). */
  function showPer(per) {
    const select = $("per");
    if (![...select.options].some((o) => o.value === String(per)))
      select.append(el("option", { value: String(per) }, `${per} a page`));
    select.value = String(per);
  }

  $("q").value = query.q;
  $("state").value = query.state;
  showPer(query.per);
  $("filters").addEventListener("submit", (e) => e.preventDefault());
  $("q").addEventListener("input", () => setQuery({ q: $("q").value, page: 1 }));
  $("state").addEventListener("change", () => setQuery({ state: $("state").value, page: 1 }));
  $("per").addEventListener("change", () => setQuery({ per: Number($("per").value), page: 1 }));
  $("prev").addEventListener("click", () => setQuery({ page: Math.max(1, query.page - 1) }));
  $("next").addEventListener("click", () => setQuery({ page: query.page + 1 }));

  const events = new EventSource("/events");
  const live = $("live");
  events.addEventListener("hello", () => {
    live.className = "live on";
    live.textContent = "live";
    refreshSoon();
  });
  events.addEventListener("update", (e) => {
    const update = JSON.parse(e.data);
    if (!view) return refreshSoon();
    const shown = new Set(view.bots.map((b) => b.bot));
    const touchesPage = update.bots === "all" || update.bots.some((b) => shown.has(b));
    // Latest actions and streams are on every page: any action or stream change refreshes.
    if (touchesPage || update.actions.length > 0 || update.streams.length > 0) refreshSoon();
  });
  events.addEventListener("error", () => {
    live.className = "live off";
    live.textContent = "disconnected; retrying…";
  });
  setInterval(refreshSoon, IDLE_REFRESH_MS);
  void load();
})();
