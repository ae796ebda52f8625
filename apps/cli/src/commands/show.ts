/**
 * `show <session>`: the transcript of the active branch (or every branch), for reading. The
 * text is the render layer's, from the same document `export` renders, so the two never
 * disagree; `--json` prints the entries themselves. `--since` / `--until` keep the entries of
 * that time, `--last N` the last N of those; the text says how many were left out. Under the
 * header, the session's totals: models, tokens, cost, duration. Paths under the home directory
 * are shown as `~/...` (not in `--json`).
 */
import { buildDocument, createRenderSession, renderTextChunks } from "@pi-session/render";
import { computeStats, sessionParent, statsSessionOf } from "@pi-session/search/documents";
import { cutText } from "../columns.js";
import { familyJson, familyLines, familyOf } from "../family.js";
import { sessionsRoot } from "../locate.js";
import type { Action } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { formatCost, formatInt, homeOf, tildePath } from "../text.js";
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
  const home = homeOf(ctx.env);
  const cwd = doc.session.cwd === undefined ? {} : { cwd: tildePath(doc.session.cwd, home) };
  const chunks = renderTextChunks(
    { ...doc, session: { ...doc.session, ...cwd }, items: shown },
    {
      full: options.full === true,
      style: ctx.io.out,
      foldHint: "; --full shows all",
      source: tildePath(session.path, home),
      ...(ctx.io.columns !== undefined ? { width: ctx.io.columns } : {}),
    },
  );
  // Each chunk ends with a newline; the boundary adds it back (and makes the text safe).
  let first = true;
  for (const chunk of chunks) {
    ctx.io.line(chunk.slice(0, -1));
    if (first) {
      for (const line of familyLines(family)) ctx.io.line(ctx.io.out.dim(oneLineField(line)));
      const totals = totalsLine(session.header, session.entries);
      if (totals !== undefined)
        ctx.io.line(ctx.io.out.dim(ctx.io.columns === undefined ? totals : cutText(totals, ctx.io.columns)));
      if (leftOut > 0) ctx.io.line(ctx.io.out.dim(leftOutNote(leftOut, doc.items.length, selection)));
    }
    first = false;
  }
  if (shown.length === 0 && leftOut > 0) ctx.io.info("no entries in that selection");
  return 0;
};

/**
 * The session at a glance, under its header: the models that answered (most tokens first),
 * tokens, cost and how long it ran (first to last entry), e.g.
 * `anthropic/claude-sonnet-4 · 123,456 tokens · $1.23 · 1h 05m`. Usage is counted as `stats`
 * counts it (its rows and exact sums); a cost of 0 with tokens is an unknown price, said so.
 * Undefined for a session with no usage and no times.
 */
export function totalsLine(header: object, entries: readonly object[]): string | undefined {
  // The usage rows read entries as plain JSON objects, as they are in the file.
  const file = {
    path: "",
    project: "",
    header: header as Record<string, unknown>,
    entries: entries as readonly Record<string, unknown>[],
  };
  const stats = computeStats([statsSessionOf(file)], { by: "model" });
  const t = stats.totals;
  const parts: string[] = [];
  if (t.records > 0) {
    const models = stats.rows.map((r) => r.key).filter((m) => !m.startsWith("("));
    if (models.length > 0)
      parts.push(
        models.length > 3 ? `${models.slice(0, 3).join(", ")} +${models.length - 3} more` : models.join(", "),
      );
    parts.push(`${formatInt(t.totalTokens)} tokens`);
    parts.push(
      t.zeroCostWithTokens === 0
        ? formatCost(t.cost)
        : t.cost === 0
          ? "cost unknown (no price)"
          : `${formatCost(t.cost)}+ (${formatInt(t.unpricedTokens)} tokens unpriced)`,
    );
  }
  const times = [file.header.timestamp, ...file.entries.map((e) => e.timestamp)]
    .map((v) => (typeof v === "string" ? Date.parse(v) : Number.NaN))
    .filter((ms) => !Number.isNaN(ms));
  if (times.length > 1) parts.push(duration(Math.max(...times) - Math.min(...times)));
  return parts.length > 0 ? oneLineField(parts.join(" · ")) : undefined;
}

/** `<1m`, `12m`, `1h 05m`, `3d 4h`. */
function duration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "<1m";
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${String(minutes % 60).padStart(2, "0")}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

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
