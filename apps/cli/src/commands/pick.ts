/**
 * `pick [query]`: choose a session interactively; prints its path (for `$(pi-session pick)`)
 * or, with `--resume` (or its older name `--exec`), resumes it in pi as `resume` does: `pi
 * --session <path>` in the session's own directory (`resume.ts`). The list is `ls --all`'s (newest first by last
 * message); typing filters it through the session database's search when its index exists
 * (a previous `search` built it), else by a case-insensitive substring of the name, first
 * message and project (every word must match). A preview shows the last messages of the
 * selected session on a wide terminal. `--fzf` hands the list to `fzf` instead.
 *
 * The picker draws on stderr and reads keys from stdin, both of which must be terminals;
 * stdout only ever receives the chosen path. Exit 0 chosen, 130 cancelled.
 */
import { spawn } from "node:child_process";
import { basename } from "node:path";
import { type SessionInfo, statPath } from "@pi-session/node-store";
import { defaultCacheDir } from "@pi-session/node-store/internal";
import { entrySummary } from "@pi-session/render";
import { CliError, UsageError } from "../errors.js";
import { listStoreSessions } from "../listing.js";
import { loadSession } from "../load.js";
import { sessionsRoot } from "../locate.js";
import { type PickerRow, type PickerSource, type PickerTerminal, runPicker } from "../picker.js";
import { shellQuote } from "@pi-session/node-store";
import { findOnPath, resumePlan, runResume } from "../resume.js";
import type { Action, Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { shortDate } from "../text.js";

/** The exit code of a pick cancelled (Esc, Ctrl-C), as a shell gives for SIGINT. */
export const EXIT_CANCELLED = 130;

export const action: Action = async (ctx, [query], options) => {
  const initial = query === undefined ? "" : String(query);
  const fzf =
    options.fzf === true
      ? findOnPath(ctx, "fzf", "--fzf needs fzf (https://github.com/junegunn/fzf)")
      : undefined;
  const resume = options.resume === true || options.exec === true;
  const pi = resume ? findOnPath(ctx, "pi", "--resume needs pi, the coding agent, on PATH") : undefined;
  const terminal = ctx.io.interactiveTerminal(process.stdin);
  if (terminal === undefined)
    throw new UsageError(
      "pick needs a terminal: it reads keys from stdin and draws on stderr",
      "In a script, use `pi-session ls --json` or `pi-session search <query> --files`.",
    );
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const listing = await listStoreSessions({ root, env: ctx.env, all: true, cwd: ctx.cwd });
  const sessions = listing.sessions;
  if (sessions.length === 0) throw new CliError(`no sessions under ${root}`);
  const chosen =
    fzf !== undefined
      ? await pickWithFzf(fzf, sessions, initial)
      : await pickHere(ctx, terminal, root, sessions, initial);
  if (typeof chosen === "number") return chosen;
  if (pi === undefined) {
    ctx.io.line(chosen);
    return 0;
  }
  return runResume(ctx, pi, resumePlan(ctx, chosen, { here: false }));
};

/** The row of a session: time, project directory, name (or first message). */
function rowOf(s: SessionInfo): PickerRow {
  return {
    value: s.path,
    cells: [
      { text: shortDate(s.modified.getTime()), color: "dim" },
      // The project's own directory name: the title needs the room more (the filter sees it all).
      { text: basename(s.cwd) || s.cwd || "-", color: "cyan" },
      s.name
        ? { text: s.name.replace(/\s+/g, " "), color: "bold" }
        : { text: (s.firstMessage || "(no messages)").replace(/\s+/g, " ") },
    ],
  };
}

function substringFilter(sessions: SessionInfo[]): (query: string) => PickerRow[] {
  const rows = sessions.map((s) => ({
    row: rowOf(s),
    haystack: `${s.name ?? ""}\n${s.firstMessage}\n${s.cwd}`.toLowerCase(),
  }));
  return (query) => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return rows.filter((r) => words.every((w) => r.haystack.includes(w))).map((r) => r.row);
  };
}

async function pickHere(
  ctx: Context,
  terminal: PickerTerminal,
  root: string,
  sessions: SessionInfo[],
  query: string,
): Promise<string | number> {
  const substring = substringFilter(sessions);
  const byPath = new Map(sessions.map((s) => [s.path, rowOf(s)]));
  const search = await searchFilter(ctx, root, byPath);
  const source: PickerSource = {
    rows: (q) =>
      q.trim() === "" ? [...byPath.values()] : search ? search(q).catch(() => substring(q)) : substring(q),
    preview: async (row, width) => previewOf(row.value, width),
    ...(search ? { status: search.status } : {}),
  };
  try {
    const row = await runPicker(terminal, source, { query });
    return row === undefined ? EXIT_CANCELLED : row.value;
  } finally {
    if (search) ctx.finishLater(search.close());
  }
}

type SearchFilter = ((query: string) => Promise<PickerRow[]>) & {
  close(): Promise<void>;
  /** The database's build while it runs (what a search typed meanwhile waits for). */
  status: NonNullable<PickerSource["status"]>;
};

/**
 * The session database's search, when its index exists (nothing is built for a pick: a cold
 * index of a large store takes a while); its hits in rank order, sessions it does not know
 * left out. Undefined without an index, or when it cannot be opened.
 */
async function searchFilter(
  ctx: Context,
  root: string,
  byPath: Map<string, PickerRow>,
): Promise<SearchFilter | undefined> {
  const { databasePath, openSearchDatabase } = await import("@pi-session/search");
  if (!isFile(databasePath(defaultCacheDir(ctx.env), root))) return undefined;
  try {
    const db = await openSearchDatabase({ root, env: ctx.env, persistent: true });
    // Brought up to date while the picker is already open; the first query waits for it, and
    // the picker's footer says how far it is.
    let building: string | undefined;
    const listeners: (() => void)[] = [];
    const tell = (text: string | undefined) => {
      building = text;
      for (const listener of listeners) listener();
    };
    const synced = db.sync({
      onProgress: (p) =>
        tell(
          `indexing ${p.done}/${p.total} (${p.total > 0 ? Math.floor((p.done / p.total) * 100) : 0}%): a search waits for it`,
        ),
    });
    synced.then(
      () => tell(undefined),
      () => tell(undefined),
    );
    const filter = async (query: string) => {
      await synced;
      const result = await db.search(query, { limit: 200, hitsPerSession: 1 });
      return result.sessions.flatMap((s) => byPath.get(s.path) ?? []);
    };
    return Object.assign(filter, {
      status: { text: () => building, onChange: (listener: () => void) => listeners.push(listener) },
      // Not awaited by the pick (the path is printed, or pi starts, at once), but by the run.
      close: () =>
        synced.then(
          () => db.close(),
          () => db.close(),
        ),
    });
  } catch {
    return undefined;
  }
}

/** The last messages of a session's branch, a line each, newest last. */
async function previewOf(path: string, width: number): Promise<string[]> {
  const session = await loadSession(path);
  const { index } = session;
  const lines = [oneLineField(index.sessionName ?? session.header.id ?? ""), oneLineField(path), ""];
  const messages = index.activePath(index.leafId).filter((e) => e.type === "message");
  for (const entry of messages.slice(-30)) {
    const { kind, preview } = entrySummary(entry, Math.max(10, width - 12));
    lines.push(`${kind}: ${preview}`);
  }
  return lines;
}

/** `fzf` over the rows: the path travels as a hidden first field. */
async function pickWithFzf(fzf: string, sessions: SessionInfo[], query: string): Promise<string | number> {
  const input = sessions
    .map((s) => {
      const cells = rowOf(s).cells.map((c) => oneLineField(c.text).replace(/\t/g, " "));
      return `${oneLineField(s.path)}\t${cells.join("  ")}\n`;
    })
    .join("");
  const self = [process.execPath, process.argv[1] ?? ""].map(shellQuote).join(" ");
  const child = spawn(
    fzf,
    [
      "--delimiter=\t",
      "--with-nth=2..",
      "--no-sort",
      "--layout=reverse",
      `--query=${query}`,
      `--preview=${self} show {1} --no-color`,
      "--preview-window=right:50%:wrap",
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
  });
  child.stdin.on("error", () => {
    // fzf quit before reading everything.
  });
  child.stdin.end(input);
  const code = await new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve(status ?? EXIT_CANCELLED));
  });
  if (code !== 0) return code === 1 ? 1 : EXIT_CANCELLED;
  const path = out.split("\n")[0]?.split("\t")[0] ?? "";
  return path === "" ? EXIT_CANCELLED : (sessions.find((s) => oneLineField(s.path) === path)?.path ?? path);
}

function isFile(path: string): boolean {
  try {
    return statPath(path)?.kind === "file";
  } catch {
    return false;
  }
}
