// The page's only script: the request list refreshes itself, and the API
// explorer sends requests with the bearer token. Served by start-api; no
// CDN, nothing inline (the page's Content-Security-Policy allows 'self').
// The pages' own addresses carry the run's key (?key=); the requests to
// the API never do.
"use strict";

const list = document.querySelector("#requests[data-live]");
if (list) {
  setInterval(async () => {
    const res = await fetch(list.dataset.live, { cache: "no-store" });
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    const fresh = doc.querySelector("#requests tbody");
    if (fresh) list.querySelector("tbody").replaceWith(fresh);
  }, 2000);
}

for (const op of document.querySelectorAll("section.operation")) {
  op.querySelector("button.send").addEventListener("click", async () => {
    const answer = op.querySelector(".answer");
    const headers = { "Content-Type": "application/json" };
    const token = document.querySelector("#token").value.trim();
    if (token) headers.Authorization = "Bearer " + token;
    let res;
    try {
      res = await fetch(op.dataset.path, { method: op.dataset.method, headers, body: op.querySelector("textarea.body").value });
    } catch (err) {
      answer.hidden = false;
      answer.querySelector(".answer-body").textContent = String(err);
      return;
    }
    const text = await res.text();
    let shown = text;
    try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (_) { /* not JSON: shown as sent */ }
    const status = answer.querySelector(".status");
    status.textContent = res.status;
    status.className = "status " + (res.status >= 500 ? "s5" : res.status >= 400 ? "s4" : "s2");
    answer.dataset.status = res.status;
    // The link keeps the query the page gave it: the run's key, which the
    // pages want and which no cookie carries (page.go, keyed).
    const id = res.headers.get("X-Samlocal-Trace");
    const link = answer.querySelector(".trace-link");
    const to = new URL(link.getAttribute("href"), location.href);
    to.pathname = id ? "/_samlocal/requests/" + encodeURIComponent(id) : "/_samlocal/requests";
    link.setAttribute("href", to.pathname + to.search);
    answer.querySelector(".answer-body").textContent = shown;
    answer.hidden = false;
  });
}
