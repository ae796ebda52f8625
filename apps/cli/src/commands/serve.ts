/**
 * `serve`: starts the local web app (`@pi-session/web`) over the sessions root, or with `--db`
 * over a team's PostgreSQL database (read-only; `--source` keeps some sources), and prints its
 * URL, token included, on stdout at once (a first build of the session database runs behind it,
 * its progress on stderr on a terminal, the page filling in as sessions are indexed); runs
 * until Ctrl-C (or SIGTERM), then closes and exits 0.
 * Listens on 127.0.0.1 unless `--host` says otherwise (then warns: the token is all that
 * guards the sessions). `--open` opens the URL in the desktop's browser. The database's
 * password is never printed: what is shown of it is its URL without the password.
 */
import { spawn } from "node:child_process";
import type { PostgresDatabase } from "@pi-session/postgres";
import { isLoopback, startServer } from "@pi-session/web";
import { UsageError } from "../errors.js";
import { sessionsRoot } from "../locate.js";
import type { Action, Context } from "../program.js";
import { databaseUrl, guarded, listOption, openTeamDatabase, wantsDatabase } from "../team-db.js";
import { oneLineField } from "../terminal-safe.js";
import { VERSION } from "../version.js";
import { stringOption } from "./common.js";

function portOption(options: Record<string, unknown>): number {
  const raw = stringOption(options, "port", "--port");
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n > 65535)
    throw new UsageError(
      `--port needs a port number from 0 to 65535, got \`${raw}\``,
      "--port 0 takes a free port.",
    );
  return n;
}

/** Opens `url` with the desktop's opener; a missing one is only a warning. */
function openBrowser(url: string, warn: (message: string) => void): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => warn(`could not open a browser (${command}); open the URL yourself`));
    child.unref();
  } catch {
    warn(`could not open a browser (${command}); open the URL yourself`);
  }
}

/** What to serve: the sessions root, or the team's database (opened read-only) and its sources. */
async function servedOf(
  ctx: Context,
  options: Record<string, unknown>,
): Promise<
  { kind: "store"; root: string } | { kind: "database"; database: PostgresDatabase; sources: string[] }
> {
  if (!wantsDatabase(options)) {
    if (options.source !== undefined) throw new UsageError("--source filters a team database: give --db too");
    const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
    return { kind: "store", root };
  }
  const url = databaseUrl(options.db, "--db");
  const sources = listOption(options, "source", "--source");
  const database = await openTeamDatabase(ctx, url, { readOnly: true });
  return { kind: "database", database, sources };
}

/** A port in use or an address not of this machine, as the usage error it is (exit 2). */
function listenUsageError(error: unknown, at: { port: number; host: string }): UsageError | undefined {
  const code = (error as { code?: string }).code;
  if (code === "EADDRINUSE")
    return new UsageError(`--port ${at.port}: already in use`, "--port 0 takes a free port.");
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return new UsageError(`--host ${at.host}: not an address of this machine`);
  return undefined;
}

export const action: Action = async (ctx, _args, options) => {
  const port = portOption(options);
  const host = stringOption(options, "host", "--host") ?? "127.0.0.1";
  const pollRaw = ctx.env.PI_SESSION_SERVE_POLL_MS;
  const pollMs = pollRaw !== undefined && /^\d+$/.test(pollRaw) ? Number(pollRaw) : undefined;
  const served = await servedOf(ctx, options);
  if (!isLoopback(host))
    ctx.io.warn(
      `listening on ${host}: other machines can reach this server; only its token keeps your sessions private`,
    );
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await guarded(() =>
      startServer({
        ...(served.kind === "store"
          ? { root: served.root, env: ctx.env }
          : {
              database: served.database,
              ...(served.sources.length > 0 ? { sources: served.sources } : {}),
            }),
        port,
        host,
        generator: `pi-session ${VERSION}`,
        ...(pollMs !== undefined ? { pollMs } : {}),
        ...(ctx.env.PI_SESSION_SERVE_POLL_ONLY === "1" ? { pollOnly: true } : {}),
        // A database's messages come scrubbed of its password (and stderr is masked: team-db.ts).
        onWarning: (m) => ctx.io.warn(m),
      }).catch((error: unknown) => {
        // Before `guarded`, which makes every coded error a failure of the database.
        throw listenUsageError(error, { port, host }) ?? error;
      }),
    );
  } catch (error) {
    if (served.kind === "database") await served.database.close().catch(() => {});
    throw error;
  }
  // Ready for Ctrl-C before the URL is out: a signal that comes before a handler ends the process.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  ctx.io.line(server.url);
  if (options.open === true) openBrowser(server.url, (m) => ctx.io.warn(m));
  const source = server.source;
  if (source.ready !== undefined) {
    // The first build: the page lists sessions as they are indexed; searches wait for its end.
    const progress = ctx.io.progress("indexing");
    const off = source.onProgress?.((p) => (p ? progress.update(p.done, p.total) : progress.end()));
    await Promise.race([source.ready, stopped]);
    off?.();
    progress.end();
  }
  const count = source.sessions().length;
  const watch = source.info().watch;
  const where =
    served.kind === "store"
      ? served.root
      : `${oneLineField(served.database.location)}${served.sources.length > 0 ? ` (${served.sources.map(oneLineField).join(", ")})` : ""}`;
  if (served.kind === "database") {
    // A name mistyped (or a machine that never synced) serves nothing of it: said, not silent.
    const seen = new Set(server.source.sessions().map((row) => row.source));
    for (const name of served.sources)
      if (!seen.has(name)) ctx.io.warn(`no sessions of source ${oneLineField(name)} in the database (yet)`);
  }
  ctx.io.info(
    `serving ${count} session${count === 1 ? "" : "s"} from ${where} (read-only; ${watch === "watch" ? "watching for changes" : "polling for changes"}); Ctrl-C to stop`,
  );
  await stopped;
  await server.close();
  return 0;
};
