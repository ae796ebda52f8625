/**
 * File activity in the app: a session's Files (`#/files?session=<key>`: the files its tool
 * calls read, edited or wrote, changes first) and a file's history (`#/files?path=<path>`: the
 * sessions that touched it, or anything under a directory, newest first). Each file leads to
 * its history, each touch to its entry in the session. From the session database's file
 * activity, which a team database does not keep (the view says so).
 */
import type { FileTouchHit, TouchedFile } from "@pi-session/search";
import { getJson, type SessionRow } from "./api.js";
import { h, oneLine, projectName, shortTime } from "./dom.js";
import { titleOf } from "./list-view.js";
import { hitHref } from "./search-view.js";
import type { View } from "./view.js";

interface SessionFiles {
  key: string;
  files: TouchedFile[];
}

interface FileHistory {
  path: string;
  sessions: (Omit<SessionRow, "parentPath"> & { touches: FileTouchHit[] })[];
}

export function fileHistoryHref(path: string): string {
  return `#/files?path=${encodeURIComponent(path)}`;
}

/** `write, edit 2, read`: what was done, changes first. */
function actionsText(counts: Record<string, number>): string {
  return ["write", "edit", "read"]
    .filter((a) => (counts[a] ?? 0) > 0)
    .map((a) => ((counts[a] as number) > 1 ? `${a} ${counts[a]}` : a))
    .join(", ");
}

function touchLink(key: string, t: FileTouchHit, label: string): HTMLElement {
  return h(
    "a",
    { class: "hit touch", attrs: { href: hitHref(key, t.entryId), "data-entry-id": t.entryId ?? "" } },
    [
      h("span", { class: `role action-${t.action}`, text: t.action }),
      t.onBranch ? null : h("span", { class: "badge", text: "other branch" }),
      h("span", { class: "snippet", text: oneLine(label, 300) }),
      h("span", { class: "time", text: t.timeMs === null ? "" : shortTime(t.timeMs) }),
    ],
  );
}

export function filesView(params: URLSearchParams): View {
  const heading = h("h1", { class: "files-title", text: "Files" });
  const status = h("p", { class: "status", text: "Loading…" });
  const results = h("div", { class: "results" });
  const el = h("section", { class: "view files-view" }, [
    h("div", { class: "toolbar" }, [heading]),
    status,
    results,
  ]);
  const controller = new AbortController();

  function fail(error: unknown): void {
    if (controller.signal.aborted) return;
    status.textContent = oneLine((error as Error).message, 300);
    el.dataset.state = "error";
  }

  function showSession(key: string): void {
    heading.textContent = "Files of the session";
    getJson<SessionFiles>(`/api/sessions/${encodeURIComponent(key)}/files`, controller.signal).then(
      (data) => {
        const list = h("ol", { class: "hits" });
        for (const f of data.files)
          list.append(
            h("li", {}, [
              h(
                "a",
                {
                  class: "hit file",
                  attrs: { href: fileHistoryHref(f.path), title: "Sessions that touched it" },
                },
                [
                  h("span", {
                    class: `role action-${f.counts.write > 0 ? "write" : f.counts.edit > 0 ? "edit" : "read"}`,
                    text: actionsText(f.counts),
                  }),
                  h("span", { class: "snippet", text: oneLine(f.path, 400) }),
                ],
              ),
            ]),
          );
        results.replaceChildren(
          h("article", { class: "result" }, [
            h("a", { class: "result-head", attrs: { href: hitHref(key, null) } }, [
              h("span", { class: "title", text: `Back to the session` }),
            ]),
            list,
          ]),
        );
        const n = data.files.length;
        status.textContent =
          n === 0 ? "No file read, edited or written." : `${n} file${n === 1 ? "" : "s"}, changes first`;
        el.dataset.state = "ready";
        el.dataset.results = String(n);
      },
      fail,
    );
  }

  function showHistory(path: string): void {
    heading.textContent = oneLine(path, 300);
    heading.title = path;
    getJson<FileHistory>(`/api/files?path=${encodeURIComponent(path)}`, controller.signal).then((data) => {
      const frag = document.createDocumentFragment();
      for (const s of data.sessions) {
        const touches = h("ol", { class: "hits" });
        for (const t of s.touches) {
          // Under a directory, each touch names its file (relative to it); then the tool and the entry.
          const file =
            t.path === data.path
              ? ""
              : t.path.startsWith(`${data.path}/`)
                ? t.path.slice(data.path.length + 1)
                : t.path;
          const label = [file, t.tool, t.entryId === null ? `line ${t.line}` : `entry ${t.entryId}`]
            .filter((p) => p !== "")
            .join(" · ");
          touches.append(h("li", {}, [touchLink(s.key, t, label)]));
        }
        frag.append(
          h("article", { class: "result", attrs: { "data-key": s.key } }, [
            h("a", { class: "result-head", attrs: { href: hitHref(s.key, null) } }, [
              h("span", { class: `title${s.name ? " named" : ""}`, text: titleOf(s) }),
              h("span", { class: "project", text: projectName(s.project), title: s.project }),
              h("span", { class: "time", text: shortTime(s.modifiedMs) }),
            ]),
            touches,
          ]),
        );
      }
      results.replaceChildren(frag);
      const n = data.sessions.length;
      status.textContent =
        n === 0
          ? "No session read, edited or wrote it."
          : `${n} session${n === 1 ? "" : "s"} touched it, newest first`;
      el.dataset.state = "ready";
      el.dataset.results = String(n);
    }, fail);
  }

  const key = params.get("session");
  const path = params.get("path");
  if (key) showSession(key);
  else if (path) showHistory(path);
  else {
    status.textContent = "Open a session's Files, or a file's history.";
    el.dataset.state = "ready";
  }
  return { el, dispose: () => controller.abort() };
}
