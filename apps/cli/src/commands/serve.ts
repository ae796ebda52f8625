/**
 * `serve`: starts the local web app (`@pi-session/web`) over the sessions root and prints its
 * URL, token included, on stdout; runs until Ctrl-C (or SIGTERM), then closes and exits 0.
 * Listens on 127.0.0.1 unless `--host` says otherwise (then warns: the token is all that
 * guards the sessions). `--open` opens the URL in the desktop's browser.
 */
import { spawn } from "node:child_process";
import { isLoopback, startServer } from "@pi-session/web";
import { CliError, UsageError } from "../errors.js";
import { sessionsRoot } from "../locate.js";
import type { Action } from "../program.js";
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

export const action: Action = async (ctx, _args, options) => {
  // The web app reads the local store only (its data access has no PostgreSQL side yet): refused
  // plainly rather than serving the local sessions under a --db the user asked for.
  if (options.db !== undefined)
    throw new CliError("serve --db is not supported yet: the web app serves the local sessions only", {
      hint: "Use `pi-session search --db` and `pi-session stats --all --db` for the team database.",
    });
  const port = portOption(options);
  const host = stringOption(options, "host", "--host") ?? "127.0.0.1";
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const pollRaw = ctx.env.PI_SESSION_SERVE_POLL_MS;
  const pollMs = pollRaw !== undefined && /^\d+$/.test(pollRaw) ? Number(pollRaw) : undefined;
  if (!isLoopback(host))
    ctx.io.warn(
      `listening on ${host}: other machines can reach this server; only its token keeps your sessions private`,
    );
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      root,
      port,
      host,
      env: ctx.env,
      generator: `pi-session ${VERSION}`,
      ...(pollMs !== undefined ? { pollMs } : {}),
      ...(ctx.env.PI_SESSION_SERVE_POLL_ONLY === "1" ? { pollOnly: true } : {}),
      onWarning: (m) => ctx.io.warn(m),
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EADDRINUSE")
      throw new UsageError(`--port ${port}: already in use`, "--port 0 takes a free port.");
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UsageError(`--host ${host}: not an address of this machine`);
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
  const count = server.store.sessions().length;
  ctx.io.line(server.url);
  ctx.io.info(
    `serving ${count} session${count === 1 ? "" : "s"} from ${root} (read-only; ${server.store.watchMode === "watch" ? "watching for changes" : "polling for changes"}); Ctrl-C to stop`,
  );
  if (options.open === true) openBrowser(server.url, (m) => ctx.io.warn(m));
  await stopped;
  await server.close();
  return 0;
};
