/**
 * `sync --to <URL>`: sends the local session store to a team's PostgreSQL database as one
 * source (`--as NAME`, default user@host), incrementally (`@pi-session/postgres`: a re-run with
 * nothing new sends nothing). `--redact` replaces secrets before anything leaves the machine;
 * `--exclude DIR` keeps a project home (and removes what an earlier sync had sent of it).
 * `--watch` keeps syncing as sessions are written (node-store's store watcher) until Ctrl-C.
 *
 * Output: one line per sync ("sent 12 sessions, 3,400 entries to postgresql://host/db as
 * ada@laptop"), or with `--json` the sync's figures (one JSON line per sync with `--watch`).
 * The URL is shown without its password, always.
 */
import { hostname, userInfo } from "node:os";
import { resolve } from "node:path";
import type { PostgresDatabase, PostgresSyncStats } from "@pi-session/postgres";
import { EXIT_OK, UsageError } from "../errors.js";
import { sessionsRoot } from "../roots.js";
import type { Action, Context } from "../program.js";
import { databaseUrl, environmentNamesDatabase, guarded, listOption, openTeamDatabase } from "../team-db.js";
import { oneLineField } from "../terminal-safe.js";
import { formatInt } from "../text.js";
import { exitCode, unreadable, warnSkipped } from "../unreadable.js";
import { stringOption } from "./options.js";

/** `user@host` of this machine, as the default source name. */
export function defaultSource(env: Context["env"]): string {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): the environment's name, if any.
  }
  user = user || env.USER || env.LOGNAME || env.USERNAME || "user";
  return `${user}@${hostname()}`;
}

function plural(n: number, word: string): string {
  return `${formatInt(n)} ${word}${n === 1 ? "" : "s"}`;
}

/** The one-line summary of a sync. */
function summary(stats: PostgresSyncStats, location: string, source: string): string {
  const sessions = stats.filesSent + stats.filesAppended;
  const entries = `${formatInt(stats.entriesSent)} ${stats.entriesSent === 1 ? "entry" : "entries"}`;
  let line = `sent ${plural(sessions, "session")}, ${entries} to ${location} as ${source}`;
  const more: string[] = [];
  if (stats.filesRemoved > 0) more.push(`${formatInt(stats.filesRemoved)} removed`);
  if (stats.filesExcluded > 0) more.push(`${formatInt(stats.filesExcluded)} excluded`);
  if (stats.skipped > 0) more.push(`${formatInt(stats.skipped)} sent meanwhile by another sync`);
  if (more.length > 0) line += ` (${more.join(", ")})`;
  return line;
}

function statsJson(stats: PostgresSyncStats, location: string, source: string) {
  return {
    database: location,
    source,
    filesSeen: stats.filesSeen,
    unchanged: stats.unchanged,
    filesSent: stats.filesSent,
    filesAppended: stats.filesAppended,
    filesRemoved: stats.filesRemoved,
    filesExcluded: stats.filesExcluded,
    skipped: stats.skipped,
    entriesSent: stats.entriesSent,
    rowsSent: stats.rowsSent,
    bytesRead: stats.bytesRead,
    bytesSent: stats.bytesSent,
    unreadable: stats.unreadable.map(({ path, error }) => ({ path, reason: error.message })),
  };
}

export const action: Action = async (ctx, _args, options) => {
  const url = databaseUrl(options.to, "--to");
  if (url === undefined && !environmentNamesDatabase(ctx.env))
    throw new UsageError(
      "sync needs a database: --to <postgresql://user@host/db>",
      "Or set PI_SESSION_DATABASE_URL (or pg's PGHOST/PGDATABASE); the password may come from ~/.pgpass.",
    );
  const source = stringOption(options, "as", "--as") ?? defaultSource(ctx.env);
  if (source.trim() === "") throw new UsageError("--as needs a name");
  const exclude = listOption(options, "exclude", "--exclude").map((d) => resolve(ctx.cwd, d));
  const redact = options.redact === true;
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const db = await openTeamDatabase(ctx, url, { readOnly: false });
  try {
    const once = async (signal?: AbortSignal): Promise<PostgresSyncStats> => {
      const progress = ctx.io.progress("syncing");
      try {
        return await guarded(() =>
          db.sync({
            root,
            source,
            redact,
            exclude,
            ...(signal ? { signal } : {}),
            onProgress: (p) => progress.update(p.done, p.total),
          }),
        );
      } finally {
        progress.end();
      }
    };
    const report = (stats: PostgresSyncStats) => {
      warnSkipped(
        ctx.io,
        stats.unreadable.map(
          ({ path, error }) => unreadable(path, error) ?? { path, code: null, reason: error.message },
        ),
      );
      if (ctx.json) ctx.io.printJson(statsJson(stats, db.location, source));
      else ctx.io.line(oneLineField(summary(stats, db.location, source)));
    };
    const first = await once();
    report(first);
    if (options.watch !== true)
      return exitCode(
        first.unreadable.map(
          ({ path, error }) => unreadable(path, error) ?? { path, code: null, reason: error.message },
        ),
        EXIT_OK,
      );
    return await watchAndSync(ctx, db, root, once, report);
  } finally {
    await db.close();
  }
};

/**
 * `--watch`: syncs again after each burst of changes under the root (and every few seconds, the
 * watcher's safety net), one sync at a time; a line only for a sync that sent something. Ends
 * on SIGINT or SIGTERM (a sync under way is aborted: its file's transaction rolls back, and the
 * next run sends it), exit 0.
 */
async function watchAndSync(
  ctx: Context,
  db: PostgresDatabase,
  root: string,
  once: (signal?: AbortSignal) => Promise<PostgresSyncStats>,
  report: (stats: PostgresSyncStats) => void,
): Promise<number> {
  const abort = new AbortController();
  let running = false;
  let again = false;
  let failure: unknown;
  let wake: () => void = () => {};
  const stopped = new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      abort.abort();
      done();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    wake = stop;
  });
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const stats = await once(abort.signal);
        if (stats.rowsSent > 0 || stats.unreadable.length > 0) report(stats);
      } while (again && !abort.signal.aborted);
    } catch (error) {
      if (!abort.signal.aborted) {
        failure = error;
        wake();
      }
    } finally {
      running = false;
    }
  };
  const pollRaw = ctx.env.PI_SESSION_SYNC_POLL_MS;
  const pollMs = pollRaw !== undefined && /^\d+$/.test(pollRaw) ? Number(pollRaw) : 5000;
  // Loaded only here: a one-off sync never watches (and starts faster without it).
  const { watchStore } = await import("../watch-store.js");
  const watcher = watchStore(root, { onChange: () => void run(), pollMs, debounceMs: 200 });
  ctx.io.info(
    `watching ${oneLineField(root)} (${watcher.mode === "watch" ? "for changes" : "polling"}); syncing to ${db.location}; Ctrl-C to stop`,
  );
  await stopped;
  watcher.close();
  while (running) await new Promise((r) => setTimeout(r, 20));
  if (failure !== undefined) throw failure;
  return EXIT_OK;
}
