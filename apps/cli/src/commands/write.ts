/**
 * The explicit write commands built on the SDK's `SessionManager`: `name`, `label` (one
 * appended entry each, as pi writes it) and `fork` (a new file). Before appending, the
 * previous bytes are copied to `<file>.bak-<time>` so every write keeps a backup.
 */
import { copyFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CAC } from "cac";
import { SessionManager } from "@pi-session/sdk";
import { CliError, UsageError } from "../errors.js";
import type { CommandSpec, Context, Runner } from "../program.js";
import { sessionPath, stringOption } from "./common.js";

function backup(path: string): string {
  const target = `${path}.bak-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  copyFileSync(path, target);
  return target;
}

function open(ctx: Context, arg: unknown): { path: string; manager: SessionManager } {
  const path = sessionPath(ctx, arg);
  try {
    return { path, manager: SessionManager.open(path) };
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), {
      hint: "Run `pi-session validate` on the file.",
    });
  }
}

function report(ctx: Context, data: Record<string, unknown>, text: string): void {
  if (ctx.json) ctx.io.printJson(data);
  else ctx.io.line(text);
}

export const name: CommandSpec = {
  register(cli: CAC, run: Runner) {
    return cli
      .command(
        "name <session> <name>",
        "WRITES: set the session's name (appends a session_info entry; backup kept)",
      )
      .example('  $ pi-session name latest "upload rate limiting"')
      .action(
        run(async (ctx, [arg, value]) => {
          if (typeof value !== "string") throw new UsageError("missing <name>");
          const { path, manager } = open(ctx, arg);
          const backupPath = backup(path);
          const id = manager.appendSessionInfo(value);
          report(
            ctx,
            { file: path, entryId: id, name: manager.getSessionName() ?? null, backupPath },
            `named ${path}: ${JSON.stringify(value)} (backup: ${backupPath})`,
          );
          return 0;
        }),
      );
  },
};

export const label: CommandSpec = {
  register(cli: CAC, run: Runner) {
    return cli
      .command(
        "label <session> <entry-id> [label]",
        "WRITES: label an entry, or clear its label (appends a label entry; backup kept)",
      )
      .example("  $ pi-session label latest b2000006 plan")
      .example("  $ pi-session label latest b2000006        # clears it")
      .action(
        run(async (ctx, [arg, entryId, value]) => {
          if (typeof entryId !== "string") throw new UsageError("missing <entry-id>");
          const { path, manager } = open(ctx, arg);
          if (!manager.getEntry(entryId)) {
            throw new UsageError(
              `no entry ${entryId} in ${path}`,
              "See the ids with `pi-session tree <session>`.",
            );
          }
          const backupPath = backup(path);
          const text = typeof value === "string" && value !== "" ? value : undefined;
          const id = manager.appendLabelChange(entryId, text);
          report(
            ctx,
            { file: path, entryId: id, targetId: entryId, label: text ?? null, backupPath },
            `${text === undefined ? "cleared the label of" : `labelled ${JSON.stringify(text)}:`} ${entryId} in ${path} (backup: ${backupPath})`,
          );
          return 0;
        }),
      );
  },
};

export const fork: CommandSpec = {
  register(cli: CAC, run: Runner) {
    return cli
      .command(
        "fork <session>",
        "WRITES a new session: one branch (--leaf) or a copy into another project (--to); prints its path",
      )
      .option("--leaf <id>", "Keep only the branch ending at this entry (pi's createBranchedSession)")
      .option("--to <cwd>", "Copy the whole session into this project directory (pi's forkFrom)")
      .example("  $ pi-session fork latest --leaf b2000009")
      .example("  $ pi-session fork 019a4c1e --to ~/projects/other")
      .action(
        run(async (ctx, [arg], options) => {
          const leaf = stringOption(options, "leaf", "--leaf");
          const to = stringOption(options, "to", "--to");
          if (leaf !== undefined && to !== undefined)
            throw new UsageError("give either --leaf or --to, not both");
          const source = sessionPath(ctx, arg);
          let path: string | undefined;
          try {
            if (to !== undefined) {
              const manager = SessionManager.forkFrom(
                source,
                resolve(ctx.cwd, to),
                ctx.sessionDir ? resolve(ctx.cwd, ctx.sessionDir) : undefined,
              );
              path = manager.getSessionFile();
            } else {
              const manager = SessionManager.open(source);
              const target = leaf ?? manager.getLeafId();
              if (target === null || !manager.getEntry(target)) {
                throw new UsageError(
                  `no entry ${String(target)} in ${source}`,
                  "See the ids with `pi-session tree <session>`.",
                );
              }
              path = manager.createBranchedSession(target);
            }
          } catch (e) {
            if (e instanceof CliError) throw e;
            throw new CliError(e instanceof Error ? e.message : String(e));
          }
          if (path === undefined) {
            throw new CliError(
              "the branch has no user or assistant message yet, so pi would not write a file; nothing written",
            );
          }
          report(ctx, { source, path }, path);
          return 0;
        }),
      );
  },
};
