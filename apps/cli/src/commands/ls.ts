/**
 * `ls [project]`: sessions, newest first: modified time, message count, project, short id and
 * name (or first message). Without `--all`, only sessions whose header cwd is the current
 * directory, `--cwd DIR`, or the project given: its cwd, or its folder of the store (then the
 * files in that folder, whatever their headers say; a folder of session files elsewhere is listed
 * as a store of its own). Metadata comes from node-store's listing (pi's `SessionInfo` rules)
 * with its metadata cache, so a warm listing only stats the files; `--no-cache` reads every
 * file. A file or directory the listing cannot read is reported on stderr (exit 3); pi leaves
 * such files out silently. Without `--all`, only those in the root or the project's own directory.
 *
 * Without `--all` (or a project), a directory with no sessions of its own lists its nearest
 * enclosing directory that has some, and says so on stderr. The table is fitted to a terminal's
 * width (`columns.ts`): the message count goes first, then the project (cut from its start
 * before it goes), then the time; the id always stays. Without `--all` the project is named once,
 * above the table. Paths under the home directory are shown as `~/...` (not in `--json`).
 */
import { basename, dirname, resolve } from "node:path";
import {
  type SessionInfo,
  type SessionParent,
  listSessionFilesUnder,
  statPath,
} from "@pi-session/node-store";
import { oneLine } from "@pi-session/render";
import { EXIT_OK, UsageError } from "../errors.js";
import { shortIds } from "../ids.js";
import { listStoreSessions, topLevel } from "../listing.js";
import { listSessionFiles, sessionsRoot } from "../locate.js";
import type { Action } from "../program.js";
import { expandHome } from "../roots.js";
import { type Cell, type Column, cutText, fitTable } from "../columns.js";
import { homeOf, shortDate, tildePath } from "../text.js";
import { oneLineField } from "../terminal-safe.js";
import { exitCode, nothingListedBecause, warnSkipped } from "../unreadable.js";
import { intOption, stringOption, timeBoundsOptions } from "./common.js";
import { type ScannedMarks, scannedMarks } from "../secret-marks.js";

function infoJson(s: SessionInfo, family: Family, marks: ScannedMarks | undefined) {
  const parent = family.parents.get(s.path);
  return {
    ...(marks ? { secrets: marks.marks.get(s.path)?.kinds ?? {} } : {}),
    path: s.path,
    id: s.id,
    cwd: s.cwd,
    name: s.name ?? null,
    parentSessionPath: s.parentSessionPath ?? null,
    parent: parent ? { path: parent.path, kind: parent.kind } : null,
    children: family.children.get(s.path)?.length ?? 0,
    created: Number.isNaN(s.created.getTime()) ? null : s.created.toISOString(),
    modified: Number.isNaN(s.modified.getTime()) ? null : s.modified.toISOString(),
    messageCount: s.messageCount,
    firstMessage: s.firstMessage,
  };
}

/** Which sessions of a listing belong under which (a fork's, a subagent's parent). */
interface Family {
  parents: ReadonlyMap<string, SessionParent>;
  /** The listed sessions under each listed session, newest first. */
  children: Map<string, SessionInfo[]>;
}

function familyOf(infos: readonly SessionInfo[], parents: ReadonlyMap<string, SessionParent>): Family {
  const listed = new Set(infos.map((s) => s.path));
  const children = new Map<string, SessionInfo[]>();
  for (const s of infos) {
    const parent = parents.get(s.path);
    if (!parent || !listed.has(parent.path)) continue;
    const under = children.get(parent.path);
    if (under) under.push(s);
    else children.set(parent.path, [s]);
  }
  return { parents, children };
}

/** `roots` with, after each, the sessions under it (depth first) when `withChildren`, and their depth. */
function rowsOf(roots: readonly SessionInfo[], family: Family, withChildren: boolean) {
  const out: { info: SessionInfo; depth: number }[] = [];
  const seen = new Set<string>();
  const add = (info: SessionInfo, depth: number) => {
    if (seen.has(info.path)) return;
    seen.add(info.path);
    out.push({ info, depth });
    if (withChildren) for (const child of family.children.get(info.path) ?? []) add(child, depth + 1);
  };
  for (const root of roots) add(root, 0);
  return out;
}

/** `2 subagents, 1 fork`: what is under a session, by kind. */
function childrenNote(children: readonly SessionInfo[], parents: ReadonlyMap<string, SessionParent>): string {
  const subagents = children.filter((c) => parents.get(c.path)?.kind === "subagent").length;
  const forks = children.length - subagents;
  return [
    subagents > 0 ? `${subagents} subagent${subagents === 1 ? "" : "s"}` : "",
    forks > 0 ? `${forks} fork${forks === 1 ? "" : "s"}` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/**
 * What `ls <dir>` names: a project folder of the store (`<root>/--home-u-proj--`), a folder of
 * session files elsewhere (a copy of one: listed as a store of its own), or a project's cwd.
 */
function whatToList(
  arg: string,
  ctx: { cwd: string; env: Record<string, string | undefined> },
  root: string,
): { folder: string } | { store: string } | { cwd: string } {
  const path = resolve(ctx.cwd, expandHome(arg, homeOf(ctx.env)));
  const stat = statPath(path);
  if (stat === null) throw new UsageError(`no such directory: ${arg}`);
  if (stat.kind !== "a directory") throw new UsageError(`not a directory: ${arg} (ls lists a project)`);
  if (dirname(path) === resolve(root)) return { folder: path };
  if (/^--.*--$/.test(basename(path)) && listSessionFilesUnder(path).length > 0) return { store: path };
  return { cwd: path };
}

export const action: Action = async (ctx, [dirArg], options) => {
  const limit = intOption(options, "limit", "--limit");
  const cwdOption = stringOption(options, "cwd", "--cwd");
  const { sinceMs, untilMs } = timeBoundsOptions(options);
  const given = typeof dirArg === "string" ? dirArg : undefined;
  if (options.all === true && (cwdOption !== undefined || given !== undefined))
    throw new UsageError(`give either --all or ${given !== undefined ? "a project" : "--cwd"}, not both`);
  if (given !== undefined && cwdOption !== undefined)
    throw new UsageError("give the project either as an argument or as --cwd, not both");
  const found = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const target = given === undefined ? undefined : whatToList(given, ctx, found.root);
  // A folder of session files outside the store is listed as a store of its own.
  const root = target && "store" in target ? target.store : found.root;
  const folder = target && "folder" in target ? target.folder : undefined;
  const want = target && "cwd" in target ? target.cwd : resolve(ctx.cwd, cwdOption ?? ".");
  const listing = await listStoreSessions({
    root,
    env: ctx.env,
    all: options.all === true || (target !== undefined && "store" in target),
    cwd: want,
    ...(folder !== undefined ? { folder } : {}),
    cache: options.cache !== false,
    progress: ctx.io.progress("listing"),
    notSessions: true,
    nearestProject: cwdOption === undefined && given === undefined,
  });
  const skipped = listing.unreadable;
  warnSkipped(ctx.io, skipped, listing.notSessions);
  let pool = listing.sessions;
  // --secrets: the sessions the session database's secret scan found secrets in.
  const marks = options.secrets === true ? await scannedMarks(ctx, { persistent: true }) : undefined;
  if (marks)
    pool = pool.filter(
      (s) => marks.marks.has(s.path) && Object.keys(marks.marks.get(s.path)?.kinds ?? {}).length > 0,
    );
  // Forks and subagents whose parent is listed are shown under it: counted on its row, or with
  // --children listed below it. The time range and --limit choose among the others.
  const family = familyOf(pool, listing.parents);
  const withChildren = options.children === true;
  let roots = topLevel(pool, listing.parents);
  const before = roots.length;
  if (sinceMs !== undefined) roots = roots.filter((s) => s.modified.getTime() >= sinceMs);
  if (untilMs !== undefined) roots = roots.filter((s) => s.modified.getTime() < untilMs);
  if (limit !== undefined) roots = roots.slice(0, limit);
  // For a script, every session: --json lists the children after their parent, always.
  const shown = rowsOf(roots, family, withChildren || ctx.json);
  const infos = shown.map((row) => row.info);
  if (ctx.json) {
    ctx.io.printJson(infos.map((s) => infoJson(s, family, marks)));
    return exitCode(skipped, EXIT_OK);
  }
  const home = homeOf(ctx.env);
  const listed = target && "store" in target ? target.store : folder;
  if (infos.length === 0) {
    const where =
      listed !== undefined
        ? `in ${listed}`
        : options.all === true
          ? `under ${root}`
          : `for ${want} under ${root}`;
    if (before > 0) {
      const flags = [sinceMs !== undefined && "--since", untilMs !== undefined && "--until"].filter(Boolean);
      const n = `${before} session${before === 1 ? "" : "s"}`;
      ctx.io.info(
        oneLineField(
          `no sessions ${where} in that time; ${n} outside it (widen or drop ${flags.join(" / ")})`,
        ),
      );
    } else if (skipped.length > 0 || listing.notSessions.length > 0)
      ctx.io.info(oneLineField(nothingListedBecause(where, skipped, listing.notSessions)));
    else
      ctx.io.info(
        oneLineField(
          options.all === true || listed !== undefined
            ? `no sessions ${where}`
            : `no sessions ${where}; \`--all\` lists every project`,
        ),
      );
    return exitCode(skipped, EXIT_OK);
  }
  const c = ctx.io.out;
  const ids = shortIds(
    infos.map((s) => displayId(s)),
    storeIds(found.root, listing.store),
  );
  const all = options.all === true;
  const project = target && "store" in target ? infos[0]?.cwd || target.store : listing.project;
  if (!all && target === undefined && listing.project !== want)
    ctx.io.info(
      oneLineField(`sessions of ${tildePath(listing.project, home)} (a parent of the current directory)`),
    );
  // What is under a session, counted in a column of its own (the first to go on a narrow
  // terminal), unless --children lists it.
  const counted = !withChildren && shown.some(({ info }) => family.children.has(info.path));
  // Narrowed, the message count goes first, then the project (cut to its end first), then the time.
  const columns: Column[] = [
    { header: "modified", align: "left", drop: 1 },
    { header: "msgs", align: "right", drop: 3 },
    { header: "id", align: "left" },
    ...(marks ? [{ header: "secrets", align: "left", cut: "end", minWidth: 8 } as const] : []),
    ...(all ? [{ header: "project", align: "left", drop: 2, cut: "end", minWidth: 10 } as const] : []),
    ...(counted ? [{ header: "under it", align: "left", drop: 4 } as const] : []),
    { header: "session", align: "left", cut: "start", minWidth: 20 },
  ];
  const rows: Cell[][] = shown.map(({ info: s, depth }, i) => {
    const under = family.children.get(s.path) ?? [];
    // Under its parent (--children): indented, with what it is.
    const kind =
      depth > 0 ? `${"  ".repeat(depth - 1)}└ ${family.parents.get(s.path)?.kind ?? "fork"}: ` : "";
    const title = oneLine(s.name ?? s.firstMessage, 60);
    return [
      { text: shortDate(s.modified.getTime()) },
      { text: String(s.messageCount) },
      { text: ids[i] as string, style: c.dim },
      ...(marks ? [{ text: kindsText(marks.marks.get(s.path)?.kinds ?? {}), style: c.yellow }] : []),
      ...(all ? [{ text: s.cwd ? tildePath(s.cwd, home) : "-" }] : []),
      ...(counted ? [{ text: childrenNote(under, family.parents), style: c.dim }] : []),
      { text: `${kind}${title}`, ...(s.name ? { style: c.bold } : {}) },
    ];
  });
  if (!all) {
    const shownProject = oneLineField(tildePath(project, home));
    const room = ctx.io.columns === undefined ? shownProject.length : ctx.io.columns - "project ".length;
    ctx.io.line(c.dim(`project ${cutText(shownProject, room, "end")}`));
  }
  for (const line of fitTable(columns, rows, ctx.io.columns, c.bold)) ctx.io.line(line);
  return exitCode(skipped, EXIT_OK);
};

/** `github 2, aws`: the kinds of secrets found, with their counts above one. */
function kindsText(kinds: Record<string, number>): string {
  return Object.entries(kinds)
    .map(([kind, n]) => (n > 1 ? `${kind} ${n}` : kind))
    .join(", ");
}

/** The id a row shows: the header's (pi lists files whose header has no string id: what is there). */
function displayId(s: SessionInfo): string {
  return typeof s.id === "string" ? s.id : String(s.id ?? "(no id)");
}

/**
 * Every id a `<session>` argument is matched against (the file names' ids, see `locate.ts`) and
 * every header id, so a shown prefix names one session.
 */
function storeIds(root: string, store: readonly SessionInfo[]): string[] {
  const ids = listSessionFiles(root).map((f) => f.id);
  for (const s of store) if (typeof s.id === "string") ids.push(s.id);
  return ids;
}
