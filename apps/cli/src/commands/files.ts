/**
 * `files <path>`: the sessions whose tool calls read, edited or wrote a file (or anything under
 * a directory), newest first; `files --session <s>`: the files one session touched, changes
 * first. Both from the session database's file activity (`@pi-session/search`), brought up
 * to date first. By default only touches on each session's current branch count; `--all`
 * adds those on abandoned branches (marked).
 */
import { resolve } from "node:path";
import type { FileTouchHit, SessionTouches, TouchedFile } from "@pi-session/search";
import { type Piece, cutEnd, cutStart, fitPieces, textWidth } from "@pi-session/render";
import { UsageError } from "../errors.js";
import type { Action, Context } from "../program.js";
import { expandHome } from "../roots.js";
import { openSyncedDatabase } from "../session-database.js";
import { oneLineField } from "../terminal-safe.js";
import { shortDate } from "../text.js";
import { sessionPath } from "./common.js";
import { stringOption } from "./options.js";

function timestamp(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function touchJson(t: FileTouchHit, withFile: boolean) {
  return {
    entryId: t.entryId,
    line: t.line,
    tool: t.tool,
    action: t.action,
    timestamp: timestamp(t.timeMs),
    ...(withFile ? { file: t.path } : {}),
    onBranch: t.onBranch,
  };
}

function sessionJson(s: SessionTouches) {
  return {
    sessionId: s.meta.sessionId,
    path: s.path,
    cwd: s.meta.cwd,
    name: s.meta.name,
    touches: s.touches.map((t) => touchJson(t, true)),
  };
}

function fileJson(f: TouchedFile) {
  return { path: f.path, counts: f.counts, touches: f.touches.map((t) => touchJson(t, false)) };
}

/** What a list of touches did, changes first: `write, edit 2, read`. */
function actionsOf(counts: Record<string, number>): string {
  return ["write", "edit", "read"]
    .filter((a) => (counts[a] ?? 0) > 0)
    .map((a) => ((counts[a] as number) > 1 ? `${a} ${counts[a]}` : a))
    .join(", ");
}

function countActions(touches: readonly FileTouchHit[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of touches) counts[t.action] = (counts[t.action] ?? 0) + 1;
  return counts;
}

/** A session's line: when it last touched, what it did, its id, project and title. */
function sessionPieces(ctx: Context, s: SessionTouches, id: string, width: number | undefined): Piece[] {
  const c = ctx.io.out;
  const date = shortDate(s.lastMs);
  const actions = actionsOf(countActions(s.touches));
  let cwd = oneLineField(s.meta.cwd || "-");
  let title = oneLineField(
    (s.meta.name ?? (s.meta.firstMessage || "(no messages)")).replace(/\s+/g, " ").trim(),
  );
  if (width !== undefined) {
    const room = Math.max(0, width - textWidth(date) - textWidth(actions) - textWidth(id) - 8);
    if (textWidth(cwd) + textWidth(title) > room) {
      cwd = cutStart(cwd, Math.min(textWidth(cwd), Math.max(Math.min(12, room), Math.floor(room / 2))));
      title = cutEnd(title, room - textWidth(cwd));
    }
  }
  return [
    { text: date, style: c.dim },
    { text: "  " },
    { text: actions, style: c.yellow },
    { text: "  " },
    { text: id, style: c.magenta },
    { text: "  " },
    { text: cwd, style: c.cyan },
    { text: "  " },
    { text: title, ...(s.meta.name ? { style: c.bold } : {}) },
  ];
}

/** A touch's line under its session: entry, action, file (under a directory), tool, branch. */
function touchPieces(ctx: Context, t: FileTouchHit, shownPath: string | undefined): Piece[] {
  const c = ctx.io.out;
  return [
    { text: "  " },
    { text: oneLineField(t.entryId ?? `line ${t.line}`), style: c.dim },
    { text: "  " },
    { text: t.action, style: t.action === "read" ? c.green : c.yellow },
    ...(shownPath !== undefined ? [{ text: "  " }, { text: oneLineField(shownPath) }] : []),
    { text: "  " },
    { text: `(${oneLineField(t.tool)}${t.onBranch ? "" : ", abandoned branch"})`, style: c.dim },
  ];
}

export const action: Action = async (ctx, [pathArg], options) => {
  const sessionArg = stringOption(options, "session", "--session");
  const given = typeof pathArg === "string" && pathArg !== "" ? pathArg : undefined;
  if (sessionArg !== undefined && given !== undefined)
    throw new UsageError("give either a <path> or --session, not both");
  if (sessionArg === undefined && given === undefined)
    throw new UsageError("missing <path> (or --session <session>)");
  const allBranches = options.all === true;
  // Resolved before the database is opened, so a bad session argument costs no indexing.
  const session = sessionArg !== undefined ? await sessionPath(ctx, sessionArg) : undefined;
  const { db, root } = await openSyncedDatabase(ctx, { persistent: options.index !== false });
  try {
    if (session !== undefined) {
      const files = await db.sessionFiles(session, { allBranches });
      if (ctx.json) {
        ctx.io.printJson(files.map(fileJson));
        return files.length > 0 ? 0 : 1;
      }
      if (files.length === 0) {
        ctx.io.info(oneLineField(`${session}: no file read, edited or written`));
        return 1;
      }
      const c = ctx.io.out;
      const width = ctx.io.columns;
      const actions = files.map((f) => actionsOf(f.counts));
      const column = Math.max(...actions.map((a) => a.length));
      files.forEach((f, i) => {
        const label = (actions[i] as string).padEnd(column);
        const note = f.touches.some((t) => t.onBranch) ? "" : " (abandoned branch only)";
        ctx.io.line(
          fitPieces(
            [
              { text: label, style: f.counts.write + f.counts.edit > 0 ? c.yellow : c.green },
              { text: "  " },
              { text: oneLineField(f.path) },
              ...(note ? [{ text: note, style: c.dim }] : []),
            ],
            width,
          ),
        );
      });
      return 0;
    }
    const path = resolve(ctx.cwd, expandHome(given as string));
    const sessions = await db.fileActivity(path, { allBranches });
    if (ctx.json) {
      ctx.io.printJson(sessions.map(sessionJson));
      return sessions.length > 0 ? 0 : 1;
    }
    if (sessions.length === 0) {
      ctx.io.info(
        oneLineField(
          `no session read, edited or wrote ${path} (or anything under it) in ${root}${allBranches ? "" : "; --all adds abandoned branches"}`,
        ),
      );
      return 1;
    }
    const width = ctx.io.columns;
    const idLength = db.uniqueIdLength(sessions.map((s) => s.meta.sessionId));
    const under = path.endsWith("/") ? path : `${path}/`;
    sessions.forEach((s, i) => {
      if (i > 0) ctx.io.line();
      ctx.io.line(fitPieces(sessionPieces(ctx, s, s.meta.sessionId.slice(0, idLength), width), width));
      for (const t of s.touches) {
        // Under a directory, each touch names its file (relative to it).
        const shown =
          t.path === path ? undefined : t.path.startsWith(under) ? t.path.slice(under.length) : t.path;
        ctx.io.line(fitPieces(touchPieces(ctx, t, shown), width));
      }
    });
    return 0;
  } finally {
    db.close();
  }
};
