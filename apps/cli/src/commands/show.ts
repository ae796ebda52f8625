/**
 * `show <session>`: the transcript of the active branch (or every branch), for reading. The
 * text is the render layer's, from the same document `export` renders, so the two never
 * disagree; `--json` prints the entries themselves. `--since` / `--until` keep the entries of
 * that time, `--last N` the last N of those; the text says how many were left out.
 */
import { buildDocument, createRenderSession, renderTextChunks } from "@pi-session/render";
import { sessionParent } from "@pi-session/search/documents";
import { familyJson, familyLines, familyOf } from "../family.js";
import { sessionsRoot } from "../locate.js";
import type { Action } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { entryIdOption, intOption, openSession, timeBoundsOptions } from "./common.js";

/** The entries kept by `--since`, `--until` and `--last` (in order), by their `timestamp`. */
function selectEntries<T>(
  items: readonly T[],
  timestampOf: (item: T) => unknown,
  selection: { sinceMs?: number; untilMs?: number; last?: number },
): T[] {
  const { sinceMs, untilMs, last } = selection;
  let kept = [...items];
  if (sinceMs !== undefined || untilMs !== undefined) {
    kept = kept.filter((item) => {
      const stamp = timestampOf(item);
      const ms = typeof stamp === "string" ? Date.parse(stamp) : Number.NaN;
      if (Number.isNaN(ms)) return false;
      return (sinceMs === undefined || ms >= sinceMs) && (untilMs === undefined || ms < untilMs);
    });
  }
  return last !== undefined && kept.length > last ? kept.slice(kept.length - last) : kept;
}

export const action: Action = async (ctx, [arg], options) => {
  const last = intOption(options, "last", "--last");
  const bounds = timeBoundsOptions(options);
  const session = await openSession(ctx, arg);
  const leaf = entryIdOption(session, options, "leaf", "--leaf");
  const all = options.allBranches === true;
  const selection = { ...bounds, ...(last !== undefined ? { last } : {}) };
  const { index } = session;
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const family = await familyOf(root, session.path, sessionParent(session.header), ctx.env);
  if (ctx.json) {
    const path = all ? [...index.entries] : index.activePath(leaf ?? index.leafId);
    const entries = selectEntries(path, (e) => e.timestamp, selection);
    ctx.io.printJson({
      file: session.path,
      id: session.header.id,
      ...familyJson(family),
      version: session.version,
      leafId: all ? index.leafId : (path.at(-1)?.id ?? null),
      labels: Object.fromEntries(index.labels),
      entries,
    });
    return 0;
  }
  const doc = buildDocument(
    createRenderSession({
      header: session.header,
      entries: session.entries,
      index,
      formatVersion: session.version,
      diagnostics: session.diagnostics,
    }),
    { view: all ? "all-branches" : "branch", leafId: leaf },
  );
  const shown = selectEntries(doc.items, (item) => item.timestamp, selection);
  const leftOut = doc.items.length - shown.length;
  const chunks = renderTextChunks(
    { ...doc, items: shown },
    {
      full: options.full === true,
      style: ctx.io.out,
      foldHint: "; --full shows all",
      source: session.path,
      ...(ctx.io.columns !== undefined ? { width: ctx.io.columns } : {}),
    },
  );
  // Each chunk ends with a newline; the boundary adds it back (and makes the text safe).
  let first = true;
  for (const chunk of chunks) {
    ctx.io.line(chunk.slice(0, -1));
    if (first) for (const line of familyLines(family)) ctx.io.line(ctx.io.out.dim(oneLineField(line)));
    if (first && leftOut > 0) ctx.io.line(ctx.io.out.dim(leftOutNote(leftOut, doc.items.length, selection)));
    first = false;
  }
  if (shown.length === 0 && leftOut > 0) ctx.io.info("no entries in that selection");
  return 0;
};

/** `… 1,234 of 1,254 entries left out (--last 20)`: what the selection hid. */
function leftOutNote(
  leftOut: number,
  total: number,
  selection: { sinceMs?: number; untilMs?: number; last?: number },
): string {
  const flags = [
    selection.sinceMs !== undefined && "--since",
    selection.untilMs !== undefined && "--until",
    selection.last !== undefined && `--last ${selection.last}`,
  ].filter(Boolean);
  const n = (x: number) => x.toLocaleString("en-US");
  return `… ${n(leftOut)} of ${n(total)} entries left out (${flags.join(", ")})`;
}
