/**
 * `ls`: sessions, newest first: modified time, message count, project, short id and name (or
 * first message). Without `--all`, only sessions whose header cwd is the current directory
 * (or `--cwd DIR`). Metadata comes from the SDK's listing (pi's `SessionInfo` rules).
 */
import { dirname, resolve } from "node:path";
import type { CAC } from "cac";
import { SessionManager, type SessionInfo } from "@pi-session/sdk";
import { UsageError } from "../errors.js";
import { listSessionFiles, sessionsRoot } from "../locate.js";
import type { CommandSpec, Runner } from "../program.js";
import { oneLine, parseSince, shortDate, table } from "../text.js";
import { intOption, stringOption } from "./common.js";

function infoJson(s: SessionInfo) {
  return {
    path: s.path,
    id: s.id,
    cwd: s.cwd,
    name: s.name ?? null,
    parentSessionPath: s.parentSessionPath ?? null,
    created: s.created.toISOString(),
    modified: Number.isNaN(s.modified.getTime()) ? null : s.modified.toISOString(),
    messageCount: s.messageCount,
    firstMessage: s.firstMessage,
  };
}

export const ls: CommandSpec = {
  register(cli: CAC, run: Runner) {
    return cli
      .command("ls", "List sessions, newest first (current project unless --all)")
      .option("--all", "Sessions of every project")
      .option("--cwd <dir>", "Sessions of this project directory instead of the current one")
      .option("--limit <n>", "At most N sessions")
      .option("--since <date>", "Only sessions modified at or after DATE (YYYY-MM-DD, ISO time, 7d, 12h)")
      .example("  $ pi-session ls")
      .example("  $ pi-session ls --all --limit 20 --json")
      .action(
        run(async (ctx, _args, options) => {
          const limit = intOption(options, "limit", "--limit");
          const cwdOption = stringOption(options, "cwd", "--cwd");
          const sinceRaw = stringOption(options, "since", "--since");
          const sinceMs = sinceRaw === undefined ? undefined : parseSince(sinceRaw, Date.now());
          if (sinceRaw !== undefined && sinceMs === undefined) {
            throw new UsageError(
              `--since: cannot read \`${sinceRaw}\` as a date`,
              "Use YYYY-MM-DD, an ISO time, or 7d / 12h.",
            );
          }
          if (options.all === true && cwdOption !== undefined)
            throw new UsageError("give either --all or --cwd, not both");
          const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
          const dirs = [...new Set(listSessionFiles(root).map((f) => dirname(f.path)))].sort();
          const progress = ctx.io.progress("listing");
          let infos: SessionInfo[] = [];
          for (const [i, dir] of dirs.entries()) {
            infos.push(...(await SessionManager.listAll(dir)));
            progress.update(i + 1, dirs.length);
          }
          progress.end();
          if (options.all !== true) {
            const want = resolve(ctx.cwd, cwdOption ?? ".");
            infos = infos.filter((s) => s.cwd !== "" && resolve(s.cwd) === want);
          }
          if (sinceMs !== undefined) infos = infos.filter((s) => s.modified.getTime() >= sinceMs);
          infos.sort((a, b) => b.modified.getTime() - a.modified.getTime() || (a.path < b.path ? -1 : 1));
          if (limit !== undefined) infos = infos.slice(0, limit);
          if (ctx.json) {
            ctx.io.printJson(infos.map(infoJson));
            return 0;
          }
          if (infos.length === 0) {
            ctx.io.info(
              options.all === true
                ? `no sessions under ${root}`
                : `no sessions for ${resolve(ctx.cwd, cwdOption ?? ".")} under ${root}; use --all to list every project`,
            );
            return 0;
          }
          const c = ctx.io.out;
          const rows = [["modified", "msgs", "id", "project", "session"].map((h) => c.bold(h))];
          for (const s of infos) {
            rows.push([
              shortDate(s.modified.getTime()),
              String(s.messageCount),
              c.dim(s.id.slice(0, 8)),
              s.cwd || "-",
              s.name ? c.bold(oneLine(s.name, 60)) : oneLine(s.firstMessage, 60),
            ]);
          }
          for (const line of table(rows, new Set([1]))) ctx.io.line(line);
          return 0;
        }),
      );
  },
};
