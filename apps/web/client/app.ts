/**
 * The app of `pi-session serve`: a shell (the top bar, the theme, the keyboard) and a router
 * over the hash: `#/` the sessions, `#/search?q=` search, `#/s/<key>?entry=<id>` a session
 * (opened at an entry), `#/usage` the charts, `#/files?session=<key>` a session's files and
 * `#/files?path=<path>` a file's history, `#/compare/<key>?left=&right=` two branches side by side. Each view is a module; this one swaps them. The
 * bar says when the sessions come from a team database rather than this machine.
 */
import { setUpTheme } from "@pi-session/render/dom";
import { onLive } from "./api.js";
import { h, oneLine } from "./dom.js";
import { compareView } from "./compare-view.js";
import { filesView } from "./files-view.js";
import { listView, loadSessions } from "./list-view.js";
import { searchView } from "./search-view.js";
import { sessionView } from "./session-view.js";
import { usageView } from "./usage-view.js";
import type { View } from "./view.js";

const app = document.getElementById("app") as HTMLElement;

const themeButton = h("button", { class: "theme", attrs: { type: "button" } });
setUpTheme(themeButton);

// ---------------------------------------------------------------------------------------
// Shell

const navLinks = {
  sessions: h("a", { class: "nav-link", text: "Sessions", attrs: { href: "#/", "data-nav": "sessions" } }),
  search: h("a", { class: "nav-link", text: "Search", attrs: { href: "#/search", "data-nav": "search" } }),
  usage: h("a", { class: "nav-link", text: "Usage", attrs: { href: "#/usage", "data-nav": "usage" } }),
};
const live = h("span", { class: "live", text: "●", title: "Live updates" });
onLive((on) => {
  live.classList.toggle("on", on);
  live.title = on ? "Live: changes on disk appear here" : "Not connected: reconnecting";
});
// Served from a team database: said in the bar (its URL, without the password, on hover).
const served = h("span", { class: "served" });
served.hidden = true;
loadSessions().then(
  (data) => {
    if (data.served.kind !== "database") return;
    const sources = data.served.sources;
    served.textContent = `Team database${sources ? ` · ${oneLine(sources.join(", "), 80)}` : ""}`;
    served.title = oneLine(data.served.location, 400);
    served.hidden = false;
  },
  () => undefined,
);
const topbar = h("header", { class: "app-bar" }, [
  h("a", { class: "brand", text: "pi-session", attrs: { href: "#/" } }),
  h("nav", { class: "nav" }, Object.values(navLinks)),
  served,
  h("span", { class: "spacer" }),
  live,
  h("span", { class: "keys", text: "/ search · j k move · Enter open · Esc back" }),
  themeButton,
]);
const main = h("main", { class: "view-host" });
app.append(topbar, main);

let current: { route: string; view: View } | undefined;
/** Where Esc goes back to from a session: the list or the search it was opened from. */
let lastListHash = "#/";

function route(): { name: string; key?: string; params: URLSearchParams } {
  const hash = location.hash.replace(/^#/, "") || "/";
  const q = hash.indexOf("?");
  const path = q < 0 ? hash : hash.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : hash.slice(q + 1));
  if (path.startsWith("/s/")) return { name: "session", key: decodeURIComponent(path.slice(3)), params };
  if (path.startsWith("/compare/"))
    return { name: "compare", key: decodeURIComponent(path.slice("/compare/".length)), params };
  if (path === "/search") return { name: "search", params };
  if (path === "/usage") return { name: "usage", params };
  if (path === "/files") return { name: "files", params };
  return { name: "sessions", params };
}

function show(): void {
  const r = route();
  const id = r.name === "session" || r.name === "compare" ? `${r.name}:${r.key}` : r.name;
  if (current && current.route === id && current.view.update) {
    current.view.update(r.params);
    return;
  }
  current?.view.dispose?.();
  let view: View;
  switch (r.name) {
    case "session":
      view = sessionView(r.key as string, r.params, () => goBack());
      break;
    case "search":
      view = searchView(r.params);
      break;
    case "usage":
      view = usageView(r.params);
      break;
    case "files":
      view = filesView(r.params);
      break;
    case "compare":
      view = compareView(r.key as string, r.params);
      break;
    default:
      view = listView(r.params);
  }
  current = { route: id, view };
  main.replaceChildren(view.el);
  for (const [name, link] of Object.entries(navLinks))
    link.classList.toggle("active", name === r.name || (name === "sessions" && r.name === "session"));
  document.documentElement.dataset.route = r.name;
}

window.addEventListener("hashchange", () => {
  const r = route();
  if (r.name !== "session") lastListHash = location.hash || "#/";
  show();
});

function goBack(): void {
  location.hash = lastListHash;
}

// ---------------------------------------------------------------------------------------
// Keyboard: / search, j k through the list, Enter open, Esc back.

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const view = current?.view;
  if (event.key === "Escape") {
    if (typing(event.target)) {
      (event.target as HTMLElement).blur();
      event.preventDefault();
      return;
    }
    if (view?.escape?.()) {
      event.preventDefault();
      return;
    }
    if (route().name !== "sessions") {
      event.preventDefault();
      if (route().name === "session") goBack();
      else location.hash = "#/";
    }
    return;
  }
  if (typing(event.target)) return;
  if (event.key === "/") {
    event.preventDefault();
    const input = document.querySelector<HTMLInputElement>(".view-host input[type=search]");
    if (route().name === "search" && input) input.focus();
    else location.hash = "#/search";
    return;
  }
  if (event.key === "j" || event.key === "k") {
    if (view?.move) {
      event.preventDefault();
      view.move(event.key === "j" ? 1 : -1);
    }
    return;
  }
  if (event.key === "Enter" && view?.open) {
    event.preventDefault();
    view.open();
  }
});

show();
if (route().name !== "session") lastListHash = location.hash || "#/";
